import type { CreditPack } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { listPacks, startCheckout } from '../../requests/billing';
import { Notice, useAction } from '../../ui';
import { checkoutReturns, formatCents, formatDs, formatPercent, goToCheckout } from './billing-model';

const NO_CHANGES: string[] = [];

/**
 * The credit packs at the caller's prices (the server already takes basedmode's discount
 * off priceCents), each bought through the hosted checkout.
 */
export function PacksSection({
  email,
  discount,
  lastTransactionId,
}: {
  email: string;
  discount: number;
  lastTransactionId: number | undefined;
}) {
  // The server takes a subscription's discount off the prices: a new discount means new prices,
  // and nothing else done in a workspace changes them.
  const packs = useLoad(listPacks, [discount], NO_CHANGES);
  const buying = useAction();

  const buy = (pack: CreditPack) =>
    buying.run(async () => {
      const checkoutUrl = await startCheckout({ packId: pack.id, ...checkoutReturns(email) });
      goToCheckout(checkoutUrl, { credits: pack.credits, lastTransactionId: lastTransactionId ?? 0 });
    });

  return (
    <section aria-labelledby="packs-title">
      <h2 id="packs-title">Buy credits</h2>
      <p class="hint">Runs are paid in Ds. A pack is paid once through a secure checkout; the receipt goes to {email}.</p>
      {discount > 0 && (
        <Notice kind="info">
          Your Based subscription takes {formatPercent(discount)} off every pack; the prices below include it.
        </Notice>
      )}
      {packs.error && <Notice kind="error">Could not load the packs: {packs.error}</Notice>}
      {buying.error && <Notice kind="error">Could not start the checkout: {buying.error}</Notice>}
      {packs.data && (
        <ul class="billing-packs">
          {packs.data.map((pack) => (
            <li key={pack.id} class="billing-pack">
              <span class="billing-pack-name">{pack.name}</span>
              <span class="billing-pack-price">
                {formatCents(pack.priceCents)}
                {discount > 0 && <span class="badge billing-discount">{formatPercent(discount)} off</span>}
              </span>
              <span class="muted">{formatCents(Math.round((pack.priceCents / pack.credits) * 100))} per 100 Ds</span>
              <button
                type="button"
                class="primary"
                disabled={buying.busy || lastTransactionId === undefined}
                aria-label={`Buy ${formatDs(pack.credits)} for ${formatCents(pack.priceCents)}`}
                onClick={() => buy(pack)}
              >
                Buy
              </button>
            </li>
          ))}
        </ul>
      )}
      {packs.loading && !packs.data && <p class="muted">Loading packs…</p>}
    </section>
  );
}

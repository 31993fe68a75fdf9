import type { SubscriptionInfo, TierInfo } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { cancelSubscription, getSubscription, listModes, type ModeName, startSubscription } from '../../requests/billing';
import { ConfirmButton, formatTime, Notice, useAction } from '../../ui';
import { checkoutReturns, formatDs, formatPercent, goToCheckout } from './billing-model';

const MODE_ORDER: ModeName[] = ['paygmode', 'byokmode', 'basedmode'];
const isListed = (mode: string): mode is ModeName => (MODE_ORDER as string[]).includes(mode);

/** What a mode means for the person, in words; the numbers come from the server's info. */
function meaning(mode: string, info: SubscriptionInfo): string {
  switch (mode) {
    case 'paygmode':
      return 'Runs are paid from the credits (Ds) you buy in packs.';
    case 'byokmode':
      return 'Model calls ride on your own provider key and cost 0 Ds; a skill’s own price is still paid in Ds.';
    case 'basedmode': {
      const perks = [`${formatDs(info.monthlyCredits)} every month`];
      if (info.packDiscount > 0) perks.push(`${formatPercent(info.packDiscount)} off every pack`);
      return `A subscription at ${info.priceDisplay}: ${perks.join(' and ')}.`;
    }
    case 'sitelicense':
      return 'Your organisation’s site license covers your runs.';
    default:
      return 'A mode this app does not know yet.';
  }
}

/** Based, offered to whoever is not on it (a site license already has what it gives). */
function SubscribeButton({
  email,
  plan,
  lastTransactionId,
}: {
  email: string;
  plan: SubscriptionInfo;
  lastTransactionId: number | undefined;
}) {
  const subscribing = useAction();
  const subscribe = () =>
    subscribing.run(async () => {
      const checkoutUrl = await startSubscription(checkoutReturns(email));
      goToCheckout(checkoutUrl, { credits: plan.monthlyCredits, lastTransactionId: lastTransactionId ?? 0 });
    });
  return (
    <div class="billing-subscribe">
      <button type="button" class="primary" disabled={subscribing.busy || lastTransactionId === undefined} onClick={subscribe}>
        Subscribe to {plan.name} ({plan.priceDisplay})
      </button>
      <p class="hint">
        {formatDs(plan.monthlyCredits)} every month, {formatPercent(plan.packDiscount)} off every pack, unlimited keys and MCP for
        editors and agents. Paid through the same secure checkout as packs.
      </p>
      {subscribing.error && <Notice kind="error">Could not start the checkout: {subscribing.error}</Notice>}
    </div>
  );
}

const SUBSCRIPTION_CHANGES = ['subscription'];
const NO_CHANGES: string[] = [];

/** A Based subscription: whether it renews, until when it is paid, and the way to stop it. */
function SubscriptionStanding() {
  const status = useLoad(getSubscription, [], SUBSCRIPTION_CHANGES);
  const cancelling = useAction();
  const standing = status.data;
  if (!standing?.subscribed || standing.paidUntil === null) return null;
  const until = formatTime(standing.paidUntil);
  const cancel = () =>
    cancelling.run(async () => {
      await cancelSubscription();
      status.reload();
    });
  return (
    <div class="billing-subscription">
      {standing.renews ? (
        <p>
          Your Based subscription renews every month; this month is paid until {until}. Cancel it any time: you keep Based until
          then.
        </p>
      ) : (
        <p>
          Your subscription is cancelled and will not renew. You keep Based and its credits until {until}; after that you are on
          Pay as you go, or Bring your own key if you stored one.
        </p>
      )}
      {standing.renews && (
        <ConfirmButton
          label="Cancel subscription"
          confirmLabel="Yes, stop renewing"
          disabled={cancelling.busy}
          onConfirm={() => void cancel()}
        />
      )}
      {cancelling.error && <Notice kind="error">{cancelling.error}</Notice>}
    </div>
  );
}

/** The caller's mode in plain words, what each mode would mean, and the way to Based. */
export function ModeSection({
  tier,
  error,
  email,
  lastTransactionId,
}: {
  tier: TierInfo | undefined;
  error: string | undefined;
  email: string | undefined;
  lastTransactionId: number | undefined;
}) {
  // The modes are the server's settings: nothing done in a workspace changes them.
  const modes = useLoad(listModes, [], NO_CHANGES);
  const based = modes.data?.basedmode;
  const canSubscribe = tier !== undefined && tier.tier !== 'basedmode' && tier.tier !== 'sitelicense';
  return (
    <section aria-labelledby="mode-title">
      <h2 id="mode-title">Your mode</h2>
      {error && <Notice kind="error">Could not load your mode: {error}</Notice>}
      {tier && (
        <>
          <p>
            You are on <strong>{tier.info.name}</strong>.
            {/* The modes listed below say what they mean; a site license is not among them. */}
            {!isListed(tier.tier) && ` ${meaning(tier.tier, tier.info)}`}
          </p>
          {tier.subscriptionExpiresAt && <SubscriptionStanding />}
          {tier.isTestMode && <Notice kind="info">This server takes payments in test mode: checkout moves no money.</Notice>}
        </>
      )}
      <p class="hint">
        The mode follows from what you have: an active Based subscription gives Based; otherwise a stored model key gives Bring
        your own key; otherwise Pay as you go.
      </p>
      {canSubscribe && based && email && <SubscribeButton email={email} plan={based} lastTransactionId={lastTransactionId} />}
      {modes.error && <Notice kind="error">Could not load the modes: {modes.error}</Notice>}
      {modes.data && (
        <dl class="billing-modes">
          {MODE_ORDER.map((mode) => {
            const info = modes.data?.[mode];
            if (!info) return null;
            return (
              <div key={mode} class={tier?.tier === mode ? 'billing-mode current' : 'billing-mode'}>
                <dt>
                  {info.name} <span class="muted">({info.priceCents > 0 ? info.priceDisplay : 'free'})</span>
                  {tier?.tier === mode && <span class="badge badge-active">current</span>}
                </dt>
                <dd>{meaning(mode, info)}</dd>
              </div>
            );
          })}
        </dl>
      )}
    </section>
  );
}

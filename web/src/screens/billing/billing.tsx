import { useCallback } from 'preact/hooks';
import type { Balance } from '../../../../src/sdk/types';
import { useLive } from '../../live';
import { useLoad } from '../../load';
import { getBalance, getTier, listTransactions } from '../../requests/billing';
import { useMe } from '../../session';
import { forgetReads } from '../../shared-reads';
import { Notice } from '../../ui';
import './billing.css';
import { ModeSection } from './billing-mode';
import { formatDs } from './billing-model';
import { PacksSection } from './billing-packs';
import { CheckoutReturn } from './billing-return';
import { TransactionsSection } from './billing-transactions';
import { ByokSection } from './byok';

const TIER_CHANGES = ['subscription', 'byok'];

function BalanceSection({ balance, error }: { balance: Balance | undefined; error: string | undefined }) {
  return (
    <section aria-labelledby="balance-title">
      <h2 id="balance-title">Balance</h2>
      {error && <Notice kind="error">Could not load the balance: {error}</Notice>}
      {balance && (
        <>
          <dl class="billing-figures">
            <div>
              <dt>Balance</dt>
              <dd class="billing-balance">{formatDs(balance.balance)}</dd>
            </div>
            <div>
              <dt>Spent so far</dt>
              <dd>{formatDs(balance.totalSpent)}</dd>
            </div>
          </dl>
          <p class={balance.canExecute ? 'billing-can' : 'billing-cannot'}>
            {balance.canExecute
              ? 'You can run skills.'
              : 'You cannot run priced skills yet: buy a pack below (your own model key pays only for model use).'}
          </p>
          <p class="hint">
            Ds are Skillet’s credits. A skill’s price and the model calls an agent skill makes are paid in Ds; you buy them in
            packs below.
          </p>
        </>
      )}
    </section>
  );
}

/** Billing: what the person holds, what their mode means, buying credits, their own model key and the ledger. */
export function BillingScreen({ query }: { query: URLSearchParams }) {
  const me = useMe();
  // The balance and the ledger move with every run, so any signal reloads them; the mode only with these.
  const balance = useLoad(getBalance, []);
  const tier = useLoad(getTier, [], TIER_CHANGES);
  const transactions = useLoad(listTransactions, []);
  const { status } = useLive();
  const outcome = query.get('checkout');

  const { reload: reloadBalance } = balance;
  const { reload: reloadTier } = tier;
  // A grant lands by the provider's webhook, which the live socket announces (and those reload on
  // their own); without the socket, every answer held may predate it.
  const live = status === 'live';
  const granted = useCallback(() => {
    if (live) return;
    forgetReads();
    reloadBalance();
    reloadTier();
  }, [live, reloadBalance, reloadTier]);
  const ledger = transactions.data;
  // The newest entry before a checkout, so its grant can be told apart on return; unknown while loading.
  const lastTransactionId = ledger ? Math.max(0, ...ledger.map((entry) => entry.id)) : transactions.error ? 0 : undefined;

  return (
    <div class="billing">
      {outcome && <CheckoutReturn outcome={outcome} transactions={ledger} reload={transactions.reload} onGranted={granted} />}
      <BalanceSection balance={balance.data} error={balance.error} />
      <ModeSection tier={tier.data} error={tier.error} email={me?.user.email} lastTransactionId={lastTransactionId} />
      {me && (
        <PacksSection email={me.user.email} discount={tier.data?.info.packDiscount ?? 0} lastTransactionId={lastTransactionId} />
      )}
      <ByokSection
        onChanged={() => {
          tier.reload();
          balance.reload();
        }}
      />
      <TransactionsSection transactions={ledger} error={transactions.error} />
    </div>
  );
}

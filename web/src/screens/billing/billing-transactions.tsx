import type { Transaction } from '../../../../src/sdk/types';
import { formatTime, Notice } from '../../ui';
import { formatDelta } from './billing-model';

/**
 * What an entry was, for a person. The ledger has two types: `purchase` adds credits (a pack,
 * a subscription's grant, or a run's price given back) and `usage` takes them (a run, a model
 * call, or a refunded payment taken back).
 */
export function kindOf(entry: Pick<Transaction, 'type' | 'amount' | 'description' | 'executionId'>): string {
  if (entry.type === 'purchase') {
    if (entry.executionId !== null) return 'Refund of a run';
    return entry.description.startsWith('basedmode') ? 'Subscription credits' : 'Purchase';
  }
  if (entry.description.startsWith('Refund of')) return 'Payment refunded';
  if (entry.description.startsWith('Agent thread')) return 'Assistant';
  return entry.type === 'usage' ? 'Run' : entry.type;
}

/** The ledger's description with the mode's code name said as the product names it. */
const describe = (description: string) =>
  description.replace(/^basedmode subscription\b/, 'Based subscription').replace(/^basedmode\b/, 'Based subscription');

/** The ledger's newest entries (the server keeps the 50 newest), newest first. */
export function TransactionsSection({
  transactions,
  error,
}: {
  transactions: Transaction[] | undefined;
  error: string | undefined;
}) {
  const newestFirst = transactions ? [...transactions].sort((a, b) => b.id - a.id) : undefined;
  return (
    <section aria-labelledby="transactions-title">
      <h2 id="transactions-title">Transactions</h2>
      {error && <Notice kind="error">Could not load the transactions: {error}</Notice>}
      {newestFirst && newestFirst.length === 0 && <p class="muted">No transactions yet.</p>}
      {newestFirst && newestFirst.length > 0 && (
        <table class="stack billing-transactions">
          <caption class="muted">The 50 most recent, newest first.</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">What</th>
              <th scope="col">Type</th>
              <th scope="col">Amount</th>
            </tr>
          </thead>
          <tbody>
            {newestFirst.map((entry) => (
              <tr key={entry.id}>
                <td>{formatTime(entry.createdAt)}</td>
                <td>{describe(entry.description)}</td>
                <td>{kindOf(entry)}</td>
                <td class={entry.amount < 0 ? 'billing-amount debit' : 'billing-amount credit'}>{formatDelta(entry.amount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

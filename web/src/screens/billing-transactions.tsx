import type { Transaction } from '../../../src/sdk/types';
import { formatTime, Notice } from '../ui';
import { formatDelta } from './billing-model';

const TYPE_LABELS: Record<string, string> = { purchase: 'Purchase', usage: 'Run' };

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
                <td>{entry.description}</td>
                <td>{TYPE_LABELS[entry.type] ?? entry.type}</td>
                <td class={entry.amount < 0 ? 'billing-amount debit' : 'billing-amount credit'}>{formatDelta(entry.amount)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

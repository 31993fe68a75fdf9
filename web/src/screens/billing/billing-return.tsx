import { useEffect, useState } from 'preact/hooks';
import type { Transaction } from '../../../../src/sdk/types';
import { navigate } from '../../router';
import { Notice } from '../../ui';
import { formatDs, type PendingCheckout, takePendingCheckout } from './billing-model';

/**
 * The waits between looks at the ledger, each longer than the last: a provider usually
 * confirms within seconds, and after about half a minute the page stops asking on its own.
 */
const RETRY_DELAYS_MS = [1000, 2000, 4000, 8000, 15_000];
const RETRIES = RETRY_DELAYS_MS.length;

/**
 * What the person is told on coming back from the hosted checkout. The grant arrives by the
 * payment provider's webhook, not with this return, so after a success the ledger alone is
 * asked again, less often each time, until this purchase's entry shows up; `onGranted` then
 * refreshes what the grant changed (the balance, and the mode after a subscription).
 */
export function CheckoutReturn({
  outcome,
  transactions,
  reload,
  onGranted,
}: {
  outcome: string;
  transactions: Transaction[] | undefined;
  reload: () => void;
  onGranted: () => void;
}) {
  const [pending] = useState<PendingCheckout | undefined>(() => takePendingCheckout());
  const [retries, setRetries] = useState(0);
  /** Whether the ledger was asked again here: then what the page loaded alongside it predates the grant. */
  const [asked, setAsked] = useState(false);
  const granted = pending && transactions?.some((entry) => entry.type === 'purchase' && entry.id > pending.lastTransactionId);
  const waiting = outcome === 'success' && pending !== undefined && !granted;

  useEffect(() => {
    if (!waiting || transactions === undefined || retries >= RETRIES) return;
    const timer = setTimeout(() => {
      setRetries((count) => count + 1);
      setAsked(true);
      reload();
    }, RETRY_DELAYS_MS[retries]);
    return () => clearTimeout(timer);
  }, [waiting, transactions, reload, retries]);

  const landedLate = granted === true && asked;
  useEffect(() => {
    if (landedLate) onGranted();
  }, [landedLate]);

  const dismiss = (
    <button type="button" class="link billing-dismiss" onClick={() => navigate('/billing', { replace: true })}>
      Dismiss
    </button>
  );

  if (outcome === 'cancelled') {
    return <Notice kind="info">Checkout cancelled: nothing was charged and your balance is unchanged. {dismiss}</Notice>;
  }
  if (outcome !== 'success') return null;
  if (!pending) {
    return (
      <Notice kind="success">
        If you completed a payment, its credits are added as soon as the payment provider confirms it. {dismiss}
      </Notice>
    );
  }
  if (granted) {
    return (
      <Notice kind="success">
        Payment received: {formatDs(pending.credits)} added to your balance. {dismiss}
      </Notice>
    );
  }
  if (retries < RETRIES) {
    return (
      <Notice kind="info">
        Payment received. Waiting for the payment provider to confirm it; {formatDs(pending.credits)} will then be added to your
        balance. {dismiss}
      </Notice>
    );
  }
  // The provider is slow: stop asking on a timer and leave it to the person.
  return (
    <Notice kind="info">
      Payment received, but the provider has not confirmed it yet; {formatDs(pending.credits)} will be added when it does.{' '}
      <button
        type="button"
        class="link"
        onClick={() => {
          setRetries(0);
          setAsked(true);
          reload();
        }}
      >
        Check again
      </button>{' '}
      {dismiss}
    </Notice>
  );
}

import { useEffect, useState } from 'preact/hooks';
import type { Transaction } from '../../../src/sdk/types';
import { navigate } from '../router';
import { Notice } from '../ui';
import { formatDs, type PendingCheckout, takePendingCheckout } from './billing-model';

const RETRY_DELAY_MS = 2000;
const RETRIES = 5;

/**
 * What the person is told on coming back from the hosted checkout. The grant arrives by the
 * payment provider's webhook, not with this return, so after a success the ledger is asked
 * again a few times until this purchase's entry shows up (the live socket may also say so).
 */
export function CheckoutReturn({
  outcome,
  transactions,
  reload,
}: {
  outcome: string;
  transactions: Transaction[] | undefined;
  reload: () => void;
}) {
  const [pending] = useState<PendingCheckout | undefined>(() => takePendingCheckout());
  const [retries, setRetries] = useState(0);
  const granted = pending && transactions?.some((entry) => entry.type === 'purchase' && entry.id > pending.lastTransactionId);
  const waiting = outcome === 'success' && pending !== undefined && !granted;

  useEffect(() => {
    if (!waiting || transactions === undefined || retries >= RETRIES) return;
    const timer = setTimeout(() => {
      setRetries((count) => count + 1);
      reload();
    }, RETRY_DELAY_MS);
    return () => clearTimeout(timer);
  }, [waiting, transactions, reload, retries]);

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
      <button type="button" class="link" onClick={reload}>
        Check again
      </button>{' '}
      {dismiss}
    </Notice>
  );
}

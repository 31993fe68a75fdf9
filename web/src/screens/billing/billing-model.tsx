/** How billing's figures are shown, and what a checkout leaves behind for the return. */

const ds = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });

export const formatDs = (amount: number): string => `${ds.format(amount)} Ds`;

/** A ledger delta with its sign always shown, so a grant and a charge read differently. */
export const formatDelta = (amount: number): string => `${amount > 0 ? '+' : amount < 0 ? '−' : ''}${formatDs(Math.abs(amount))}`;

export const formatCents = (cents: number): string => `$${(cents / 100).toFixed(2)}`;

export const formatPercent = (fraction: number): string => `${Math.round(fraction * 100)}%`;

/**
 * What the page remembers across the trip to the hosted checkout (the page is left and
 * loaded again), so that on return it can tell when this purchase's grant has landed.
 */
export interface PendingCheckout {
  credits: number;
  /** The newest ledger entry before leaving; the grant is a purchase entry after it. */
  lastTransactionId: number;
}

const PENDING_KEY = 'skillet.pendingCheckout';

export function rememberCheckout(pending: PendingCheckout): void {
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
}

/** Where the hosted checkout sends the person back to, on each outcome: the Billing page. */
export function checkoutReturns(email: string): { email: string; successUrl: string; cancelUrl: string } {
  const back = `${window.location.origin}/app/billing`;
  return { email, successUrl: `${back}?checkout=success`, cancelUrl: `${back}?checkout=cancelled` };
}

/** Leaves for the checkout at `checkoutUrl`, remembering what it should grant so the return can say when it has. */
export function goToCheckout(checkoutUrl: string, pending: PendingCheckout): void {
  rememberCheckout(pending);
  window.location.assign(checkoutUrl);
}

/** The remembered checkout, taken (so a later visit does not claim it again). */
export function takePendingCheckout(): PendingCheckout | undefined {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as Partial<PendingCheckout>;
    if (typeof parsed.credits !== 'number' || typeof parsed.lastTransactionId !== 'number') return undefined;
    return { credits: parsed.credits, lastTransactionId: parsed.lastTransactionId };
  } catch {
    return undefined;
  }
}

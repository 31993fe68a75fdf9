import type { Kysely } from 'kysely';
import type Stripe from 'stripe';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { inGroupedTransaction } from '../db/group-commit.js';
import type { Tables } from '../db/tables.js';
import { MODE_INFO } from '../identity/subscription-mode.js';
import { invalidateForUser } from '../identity/user-invalidation.js';
import { grant, takeBack } from '../ledger/ledger.store.js';
import { queueCreditGrant } from '../webhooks/producers.js';
import {
  type CheckoutSessionRow,
  claimPaid,
  lockByPaymentReference,
  recordRefunded,
  setSubscriptionCancelled,
} from './checkout-sessions.store.js';
import { claimEvent } from './payment-events.store.js';
import { setSubscriptionExpiry, subscriptionExpiry } from './standing.store.js';

type EventOutcome = 'applied' | 'duplicate' | 'ignored';

interface Applied {
  outcome: EventOutcome;
  /** Whose billing standing changed, so their cached credentials are re-read. */
  userId?: string;
  /** Whether a credits.granted webhook was queued with the grant. */
  webhookQueued?: boolean;
}

/** Grants credits and queues the grant's webhook in the same transaction. */
async function grantAndTell(trx: Kysely<Tables>, entry: Parameters<typeof grant>[1]): Promise<boolean> {
  await grant(trx, entry);
  return queueCreditGrant(trx, entry.nowIso, { userId: entry.userId, amount: entry.amount, description: entry.description });
}

/** An id given as itself or as the object it names; anything else (null, an unexpected shape) is none. */
function idOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'id' in value && typeof value.id === 'string') return value.id;
  return null;
}

/** A month on from the later of now and the current expiry. */
function extended(currentIso: string | null, now: Date): string {
  const from = new Date(Math.max(now.getTime(), currentIso ? Date.parse(currentIso) : 0));
  from.setUTCMonth(from.getUTCMonth() + 1);
  return from.toISOString();
}

async function grantMonth(trx: Kysely<Tables>, session: CheckoutSessionRow, paymentId: string, now: Date, what: string) {
  const current = await subscriptionExpiry(trx, session.user_id);
  await setSubscriptionExpiry(trx, session.user_id, extended(current, now));
  return grantAndTell(trx, {
    userId: session.user_id,
    amount: MODE_INFO.basedmode.monthlyCredits,
    description: `basedmode ${what}: ${MODE_INFO.basedmode.monthlyCredits} Ds`,
    paymentSessionId: paymentId,
    nowIso: now.toISOString(),
  });
}

async function checkoutPaid(trx: Kysely<Tables>, checkout: Stripe.Checkout.Session, now: Date): Promise<Applied> {
  if (checkout.payment_status !== 'paid') return { outcome: 'ignored' };
  const reference = idOf(checkout.payment_intent) ?? idOf(checkout.subscription);
  // Only the delivery that moves the session from open to paid grants anything.
  const session = await claimPaid(trx, checkout.id, reference, now.toISOString());
  if (!session) return { outcome: 'ignored' };
  const webhookQueued =
    session.kind === 'subscription'
      ? await grantMonth(trx, session, session.id, now, 'subscription started')
      : await grantAndTell(trx, {
          userId: session.user_id,
          amount: session.credits,
          description: `Bought ${session.credits} Ds (${session.pack_id})`,
          paymentSessionId: session.id,
          nowIso: now.toISOString(),
        });
  return { outcome: 'applied', userId: session.user_id, webhookQueued };
}

/** A renewal of a subscription: the invoice names the subscription the first checkout started. */
async function invoicePaid(trx: Kysely<Tables>, invoice: Stripe.Invoice, now: Date): Promise<Applied> {
  if (invoice.billing_reason !== 'subscription_cycle' || !invoice.id) return { outcome: 'ignored' };
  // Older API versions name the subscription on the invoice itself; the typings know only parent.subscription_details.
  const legacy = 'subscription' in invoice ? invoice.subscription : undefined;
  const subscription = idOf(legacy) ?? idOf(invoice.parent?.subscription_details?.subscription);
  if (!subscription) return { outcome: 'ignored' };
  const session = await lockByPaymentReference(trx, subscription);
  if (session?.kind !== 'subscription') return { outcome: 'ignored' };
  const webhookQueued = await grantMonth(trx, session, invoice.id, now, 'renewal');
  return { outcome: 'applied', userId: session.user_id, webhookQueued };
}

/** Takes back the credits of the refunded share of a pack, once per refunded amount. */
async function chargeRefunded(trx: Kysely<Tables>, charge: Stripe.Charge, now: Date): Promise<Applied> {
  const paymentIntent = idOf(charge.payment_intent);
  if (!paymentIntent || !(charge.amount > 0)) return { outcome: 'ignored' };
  const session = await lockByPaymentReference(trx, paymentIntent);
  if (session?.kind !== 'pack') return { outcome: 'ignored' };
  const refundedTotal = Math.floor((session.credits * Math.min(charge.amount_refunded, charge.amount)) / charge.amount);
  const due = refundedTotal - session.credits_refunded;
  if (due <= 0) return { outcome: 'ignored' };
  await recordRefunded(trx, session.id, refundedTotal);
  await takeBack(trx, {
    userId: session.user_id,
    due,
    description: `Refund of ${session.pack_id}: ${due} Ds taken back`,
    paymentSessionId: session.id,
    nowIso: now.toISOString(),
  });
  return { outcome: 'applied', userId: session.user_id };
}

/**
 * A subscription changed at the provider (the person cancelled or resumed it in Stripe's own
 * pages), or ended there: its renewal state follows, and an ended one ends Based now.
 */
async function subscriptionChanged(
  trx: Kysely<Tables>,
  subscription: Stripe.Subscription,
  ended: boolean,
  now: Date,
): Promise<Applied> {
  const session = await lockByPaymentReference(trx, subscription.id);
  if (session?.kind !== 'subscription') return { outcome: 'ignored' };
  const cancelled = ended || subscription.cancel_at_period_end;
  await setSubscriptionCancelled(trx, session.id, cancelled ? (session.subscription_cancelled_at ?? now.toISOString()) : null);
  if (ended) {
    const current = await subscriptionExpiry(trx, session.user_id);
    if (current !== null && Date.parse(current) > now.getTime())
      await setSubscriptionExpiry(trx, session.user_id, now.toISOString());
  }
  return { outcome: 'applied', userId: session.user_id };
}

function apply(trx: Kysely<Tables>, event: Stripe.Event, now: Date): Promise<Applied> {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return checkoutPaid(trx, event.data.object, now);
    case 'invoice.paid':
      return invoicePaid(trx, event.data.object, now);
    case 'charge.refunded':
      return chargeRefunded(trx, event.data.object, now);
    case 'customer.subscription.updated':
      return subscriptionChanged(trx, event.data.object, false, now);
    case 'customer.subscription.deleted':
      return subscriptionChanged(trx, event.data.object, true, now);
    default:
      return Promise.resolve({ outcome: 'ignored' });
  }
}

/**
 * Acts on a verified provider event at most once: its id is claimed in the same
 * transaction that grants or takes back credits, so a duplicate delivery (concurrent or
 * later) finds it claimed and changes nothing. The outcome is answered once that
 * transaction has committed.
 */
export async function handlePaymentEvent(
  ctx: Pick<AppContext, 'db' | 'clock' | 'credentials' | 'control' | 'webhooks'>,
  event: Stripe.Event,
): Promise<EventOutcome> {
  const now = ctx.clock.now();
  let applied: Applied;
  try {
    // On SQLite, deliveries arriving together share one transaction (db/group-commit.ts).
    applied = await inGroupedTransaction(ctx.db, async (trx) => {
      if (!(await claimEvent(trx, event.id, event.type, now.toISOString()))) return { outcome: 'duplicate' };
      return apply(trx, event, now);
    });
  } catch (error) {
    if (isUniqueViolation(error)) return 'duplicate';
    throw error;
  }
  if (applied.webhookQueued) ctx.webhooks.kick();
  if (applied.userId) {
    ctx.credentials.forgetUser(applied.userId);
    await invalidateForUser(ctx, applied.userId, ['balance', 'transactions', 'subscription']);
  }
  return applied.outcome;
}

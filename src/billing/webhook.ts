import type { Kysely } from 'kysely';
import type Stripe from 'stripe';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { preparedWrite } from '../db/prepared-lookup.js';
import type { Tables } from '../db/tables.js';
import { type CheckoutSessionRow, claimPaid, lockByPaymentReference, recordRefunded } from './checkout-sessions.store.js';
import { GroupCommit } from './group-commit.js';
import { grant, takeBack } from './ledger.js';
import { MODE_INFO } from './packs.js';

const claimEvent = preparedWrite((db, id: string, type: string, receivedAt: string) =>
  db.insertInto('payment_events').values({ id, type, received_at: receivedAt }),
);

export type EventOutcome = 'applied' | 'duplicate' | 'ignored';

interface Applied {
  outcome: EventOutcome;
  /** Whose billing standing changed, so their cached credentials are re-read. */
  userId?: string;
}

const idOf = (value: string | { id: string } | null | undefined) => (typeof value === 'string' ? value : (value?.id ?? null));

/** A month on from the later of now and the current expiry. */
function extended(currentIso: string | null, now: Date): string {
  const from = new Date(Math.max(now.getTime(), currentIso ? Date.parse(currentIso) : 0));
  from.setUTCMonth(from.getUTCMonth() + 1);
  return from.toISOString();
}

async function grantMonth(trx: Kysely<Tables>, session: CheckoutSessionRow, paymentId: string, now: Date, what: string) {
  const user = await trx
    .selectFrom('users')
    .select('subscription_expires_at')
    .where('id', '=', session.user_id)
    .executeTakeFirstOrThrow();
  await trx
    .updateTable('users')
    .set({ subscription_expires_at: extended(user.subscription_expires_at, now) })
    .where('id', '=', session.user_id)
    .execute();
  await grant(trx, {
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
  if (session.kind === 'subscription') {
    await grantMonth(trx, session, session.id, now, 'subscription started');
  } else {
    await grant(trx, {
      userId: session.user_id,
      amount: session.credits,
      description: `Bought ${session.credits} Ds (${session.pack_id})`,
      paymentSessionId: session.id,
      nowIso: now.toISOString(),
    });
  }
  return { outcome: 'applied', userId: session.user_id };
}

/** A renewal of a subscription: the invoice names the subscription the first checkout started. */
async function invoicePaid(ctx: AppContext, trx: Kysely<Tables>, invoice: Stripe.Invoice, now: Date): Promise<Applied> {
  if (invoice.billing_reason !== 'subscription_cycle' || !invoice.id) return { outcome: 'ignored' };
  const legacy = (invoice as unknown as { subscription?: string | { id: string } | null }).subscription;
  const subscription = idOf(legacy) ?? idOf(invoice.parent?.subscription_details?.subscription);
  if (!subscription) return { outcome: 'ignored' };
  const session = await lockByPaymentReference(trx, ctx.dialect, subscription);
  if (session?.kind !== 'subscription') return { outcome: 'ignored' };
  await grantMonth(trx, session, invoice.id, now, 'renewal');
  return { outcome: 'applied', userId: session.user_id };
}

/** Takes back the credits of the refunded share of a pack, once per refunded amount. */
async function chargeRefunded(ctx: AppContext, trx: Kysely<Tables>, charge: Stripe.Charge, now: Date): Promise<Applied> {
  const paymentIntent = idOf(charge.payment_intent);
  if (!paymentIntent || !(charge.amount > 0)) return { outcome: 'ignored' };
  const session = await lockByPaymentReference(trx, ctx.dialect, paymentIntent);
  if (session?.kind !== 'pack') return { outcome: 'ignored' };
  const refundedTotal = Math.floor((session.credits * Math.min(charge.amount_refunded, charge.amount)) / charge.amount);
  const due = refundedTotal - session.credits_refunded;
  if (due <= 0) return { outcome: 'ignored' };
  await recordRefunded(trx, session.id, refundedTotal);
  await takeBack(trx, ctx.dialect, {
    userId: session.user_id,
    due,
    description: `Refund of ${session.pack_id}: ${due} Ds taken back`,
    paymentSessionId: session.id,
    nowIso: now.toISOString(),
  });
  return { outcome: 'applied', userId: session.user_id };
}

function apply(ctx: AppContext, trx: Kysely<Tables>, event: Stripe.Event, now: Date): Promise<Applied> {
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded':
      return checkoutPaid(trx, event.data.object, now);
    case 'invoice.paid':
      return invoicePaid(ctx, trx, event.data.object, now);
    case 'charge.refunded':
      return chargeRefunded(ctx, trx, event.data.object, now);
    default:
      return Promise.resolve({ outcome: 'ignored' });
  }
}

const groupCommits = new WeakMap<Kysely<Tables>, GroupCommit>();

/**
 * Runs a delivery's work in a transaction. On SQLite, deliveries arriving together share
 * one (group-commit.ts): it writes one transaction at a time anyway, and the commit is most
 * of the cost. PostgreSQL commits concurrent transactions side by side, so each delivery
 * there has its own.
 */
function inTransaction<T>(ctx: AppContext, work: (trx: Kysely<Tables>) => Promise<T>): Promise<T> {
  if (ctx.dialect !== 'sqlite') return ctx.db.transaction().execute(work);
  let group = groupCommits.get(ctx.db);
  if (!group) {
    group = new GroupCommit(ctx.db);
    groupCommits.set(ctx.db, group);
  }
  return group.run(work);
}

/**
 * Acts on a verified provider event at most once: its id is claimed in the same
 * transaction that grants or takes back credits, so a duplicate delivery (concurrent or
 * later) finds it claimed and changes nothing. The outcome is answered once that
 * transaction has committed.
 */
export async function handlePaymentEvent(ctx: AppContext, event: Stripe.Event): Promise<EventOutcome> {
  const now = ctx.clock.now();
  let applied: Applied;
  try {
    applied = await inTransaction(ctx, async (trx) => {
      await claimEvent(trx, event.id, event.type, now.toISOString());
      return apply(ctx, trx, event, now);
    });
  } catch (error) {
    if (isUniqueViolation(error)) return 'duplicate';
    throw error;
  }
  if (applied.userId) ctx.credentials.forgetUser(applied.userId);
  return applied.outcome;
}

import type { Kysely, Selectable } from 'kysely';
import { lockingRead } from '../db/locks.js';
import { preparedWrite } from '../db/prepared-lookup.js';
import type { Tables } from '../db/tables.js';
import type { CheckoutSessionsTable } from '../db/tables-billing.js';

export type CheckoutSessionRow = Selectable<CheckoutSessionsTable>;

export async function insertCheckoutSession(db: Kysely<Tables>, row: CheckoutSessionRow): Promise<void> {
  await db.insertInto('checkout_sessions').values(row).execute();
}

export function findCheckoutSession(db: Kysely<Tables>, id: string): Promise<CheckoutSessionRow | undefined> {
  return db.selectFrom('checkout_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The session a payment belongs to, held until the transaction ends. */
export function lockByPaymentReference(trx: Kysely<Tables>, reference: string) {
  const query = trx.selectFrom('checkout_sessions').selectAll().where('payment_reference', '=', reference);
  return lockingRead(trx, query).executeTakeFirst();
}

/**
 * Open to paid, once: the session as it now is for the call that made the change, nothing
 * for any other (already paid, cancelled, or unknown).
 */
const claimPaidQuery = preparedWrite((db, id: string, paymentReference: string | null, nowIso: string) =>
  db
    .updateTable('checkout_sessions')
    .set({ status: 'paid', payment_reference: paymentReference, paid_at: nowIso })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .returningAll(),
);

export async function claimPaid(db: Kysely<Tables>, id: string, paymentReference: string | null, nowIso: string) {
  return (await claimPaidQuery(db, id, paymentReference, nowIso)).rows[0];
}

export async function markCanceled(db: Kysely<Tables>, id: string): Promise<void> {
  await db
    .updateTable('checkout_sessions')
    .set({ status: 'canceled' })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .execute();
}

export async function recordRefunded(db: Kysely<Tables>, id: string, creditsRefunded: number): Promise<void> {
  await db.updateTable('checkout_sessions').set({ credits_refunded: creditsRefunded }).where('id', '=', id).execute();
}

/** A person's paid subscriptions that still renew, oldest first. */
export function renewingSubscriptions(db: Kysely<Tables>, userId: string): Promise<CheckoutSessionRow[]> {
  return db
    .selectFrom('checkout_sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where('kind', '=', 'subscription')
    .where('status', '=', 'paid')
    .where('payment_reference', 'is not', null)
    .where('subscription_cancelled_at', 'is', null)
    .orderBy('paid_at')
    .execute();
}

/** Marks a subscription cancelled (it renews no more), or not (resumed at the provider). */
export async function setSubscriptionCancelled(db: Kysely<Tables>, id: string, cancelledAt: string | null): Promise<void> {
  await db.updateTable('checkout_sessions').set({ subscription_cancelled_at: cancelledAt }).where('id', '=', id).execute();
}

import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { standingOfRow } from '../identity/subscription-mode.js';

/** A user's balance and standing from one read of their row. */
export async function accountOf(db: Kysely<Tables>, userId: string) {
  const row = await db
    .selectFrom('users')
    .select(['balance', 'held', 'total_spent', 'subscription_expires_at', 'site_license_until', 'byok_provider'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return { balance: row.balance, held: row.held, totalSpent: row.total_spent, standing: standingOfRow(row) };
}

/** The user an execution belongs to, with what decides whether their runs are charged. */
export async function payerOfExecution(db: Kysely<Tables>, executionId: string) {
  const row = await db
    .selectFrom('executions as e')
    .innerJoin('users as u', 'u.id', 'e.user_id')
    .select(['u.id', 'u.is_admin', 'u.site_license_until', 'u.subscription_expires_at', 'u.byok_provider'])
    .where('e.execution_id', '=', executionId)
    .executeTakeFirstOrThrow();
  return { userId: row.id, isAdmin: row.is_admin === 1, standing: standingOfRow(row) };
}

export async function subscriptionExpiry(db: Kysely<Tables>, userId: string): Promise<string | null> {
  const row = await db.selectFrom('users').select('subscription_expires_at').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.subscription_expires_at;
}

export async function setSubscriptionExpiry(db: Kysely<Tables>, userId: string, expiresAt: string): Promise<void> {
  await db.updateTable('users').set({ subscription_expires_at: expiresAt }).where('id', '=', userId).execute();
}

/** The user with this (normalised) email, with their site license set to `untilIso`; none when there is no such user. */
export function setSiteLicenseUntil(db: Kysely<Tables>, email: string, untilIso: string | null) {
  return db
    .updateTable('users')
    .set({ site_license_until: untilIso })
    .where('email', '=', email)
    .returning(['id', 'email', 'site_license_until'])
    .executeTakeFirst();
}

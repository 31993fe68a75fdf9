import type { Kysely, Selectable } from 'kysely';
import type { Tables, UsersTable } from '../db/tables.js';
import type { BillingStanding } from './subscription-mode.js';

type StandingColumns = Pick<Selectable<UsersTable>, 'subscription_expires_at' | 'site_license_until' | 'byok_provider'>;

export function standingOfRow(row: StandingColumns): BillingStanding {
  return {
    subscriptionExpiresAt: row.subscription_expires_at,
    siteLicenseUntil: row.site_license_until,
    hasByok: row.byok_provider !== null,
  };
}

/** A user's billing standing as stored now (callers carry a copy as old as their credential cache). */
export async function standingOf(db: Kysely<Tables>, userId: string): Promise<BillingStanding> {
  const row = await db
    .selectFrom('users')
    .select(['subscription_expires_at', 'site_license_until', 'byok_provider'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return standingOfRow(row);
}

/** A user's balance and standing from one read of their row. */
export async function accountOf(db: Kysely<Tables>, userId: string) {
  const row = await db
    .selectFrom('users')
    .select(['balance', 'total_spent', 'subscription_expires_at', 'site_license_until', 'byok_provider'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return { balance: row.balance, totalSpent: row.total_spent, standing: standingOfRow(row) };
}

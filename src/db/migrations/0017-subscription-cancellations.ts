import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

/**
 * When a person cancelled the subscription a paid checkout started (issue 28): it stops
 * renewing, and what was paid runs to its end. Checkouts before this were never cancelled.
 */
export function subscriptionCancellationsMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('checkout_sessions').addColumn('subscription_cancelled_at', t.timestamp).execute();
    },
  };
}

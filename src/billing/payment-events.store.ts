import type { Kysely } from 'kysely';
import { preparedWrite } from '../db/prepared-lookup.js';
import type { Tables } from '../db/tables.js';

const insertClaim = preparedWrite((db, id: string, type: string, receivedAt: string) =>
  db
    .insertInto('payment_events')
    .values({ id, type, received_at: receivedAt })
    .onConflict((conflict) => conflict.column('id').doNothing()),
);

/**
 * Records a provider event as handled: false when it already was, by an earlier delivery or
 * by a concurrent one that committed first (the insert waits for it on PostgreSQL). A
 * duplicate is common (providers redeliver), so it is answered, not thrown: an error's
 * stack cost more than the whole claim.
 */
export async function claimEvent(db: Kysely<Tables>, id: string, type: string, receivedAt: string): Promise<boolean> {
  const claimed = await insertClaim(db, id, type, receivedAt);
  return Number(claimed.numAffectedRows) === 1;
}

import { type Kysely, sql } from 'kysely';
import { lockRow } from '../db/locks.js';
import type { Tables } from '../db/tables.js';

/** The cluster lease a thread's turns run under is named this, then the thread's row id (thread-turns.ts). */
export const TURN_LEASE_PREFIX = 'thread-turn:';

/**
 * A claim still counts while it is fresh (its turn may not have taken the thread's lease
 * yet) or while its thread's turn lease is held; a claim whose node stopped counts no
 * longer once both have lapsed.
 */
function live(nowIso: string, freshSinceIso: string) {
  return sql<boolean>`(thread_turn_claims.claimed_at >= ${freshSinceIso} or exists (
    select 1 from cluster_leases
    where cluster_leases.name = cast(${TURN_LEASE_PREFIX} as text) || thread_turn_claims.thread_id
      and cluster_leases.expires_at >= ${nowIso}))`;
}

export type ClaimOutcome = 'claimed' | 'already' | 'full';

/**
 * Claims a turn of the thread for the user, unless they already have `limit` claims that
 * count. Counted under a lock on the user's row (PostgreSQL; SQLite writes one at a time),
 * so concurrent requests on any node cannot all slip under the limit. A user who already
 * has a claim on this thread needs no second one: a thread runs one turn at a time.
 */
export async function claimTurn(
  trx: Kysely<Tables>,
  claim: { threadId: string; userId: string; limit: number; nowIso: string; freshSinceIso: string },
): Promise<ClaimOutcome> {
  await lockRow(trx, 'users', claim.userId);
  await trx
    .deleteFrom('thread_turn_claims')
    .where('user_id', '=', claim.userId)
    .where(sql<boolean>`not ${live(claim.nowIso, claim.freshSinceIso)}`)
    .execute();
  const refreshed = await trx
    .updateTable('thread_turn_claims')
    .set({ claimed_at: claim.nowIso })
    .where('thread_id', '=', claim.threadId)
    .where('user_id', '=', claim.userId)
    .executeTakeFirst();
  if (Number(refreshed.numUpdatedRows) === 1) return 'already';
  const row = await trx
    .selectFrom('thread_turn_claims')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('user_id', '=', claim.userId)
    .executeTakeFirstOrThrow();
  if (Number(row.count) >= claim.limit) return 'full';
  await trx
    .insertInto('thread_turn_claims')
    .values({ thread_id: claim.threadId, user_id: claim.userId, claimed_at: claim.nowIso })
    .execute();
  return 'claimed';
}

/** Ends the thread's claims made up to `throughIso`: the turns they asked for have run. */
export async function endTurnClaims(db: Kysely<Tables>, threadId: string, throughIso: string): Promise<void> {
  await db.deleteFrom('thread_turn_claims').where('thread_id', '=', threadId).where('claimed_at', '<=', throughIso).execute();
}

/** Takes back one user's claim on a thread whose message was never stored. */
export async function dropTurnClaim(db: Kysely<Tables>, threadId: string, userId: string): Promise<void> {
  await db.deleteFrom('thread_turn_claims').where('thread_id', '=', threadId).where('user_id', '=', userId).execute();
}

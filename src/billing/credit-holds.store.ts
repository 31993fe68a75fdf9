import type { Kysely } from 'kysely';
import { preparedStatement } from '../db/prepared-lookup.js';
import { type Steps, statement } from '../db/statement-steps.js';
import type { Tables } from '../db/tables.js';

/**
 * Credits held for house-key model calls under way. `users.held` is the sum of a user's
 * holds; a hold is taken only while the balance less everything already held covers it,
 * in one conditional update, so concurrent calls (on any node, on either engine) can never
 * together hold more than the balance. Holds are not transactions: the ledger shows only
 * what a call was charged when it settled. Every function runs inside the caller's
 * transaction, so the sum and its rows never disagree; the writes are Steps
 * (statement-steps.ts), as a model call's hold and charge are on its hot path.
 */

export interface NewHold {
  id: string;
  userId: string;
  amount: number;
  owner: string;
  nodeId: string;
  nowIso: string;
  expiresIso: string;
}

// Each model call takes a hold and lets it go: built and compiled once (prepared-lookup.ts).
const addHeldWhenCovered = preparedStatement((db, userId: string, amount: number, covered: number) =>
  db
    .updateTable('users')
    .set((eb) => ({ held: eb('held', '+', amount) }))
    .where('id', '=', userId)
    .where((eb) => eb(eb('balance', '-', eb.ref('held')), '>=', covered)),
);

const insertHold = preparedStatement(
  (db, id: string, userId: string, amount: number, owner: string, nodeId: string, expiresAt: string, createdAt: string) =>
    db.insertInto('credit_holds').values({
      id,
      user_id: userId,
      amount,
      owner,
      node_id: nodeId,
      expires_at: expiresAt,
      created_at: createdAt,
    }),
);

const deleteHold = preparedStatement((db, holdId: string) =>
  db.deleteFrom('credit_holds').where('id', '=', holdId).returning(['user_id', 'amount']),
);

const subtractHeld = preparedStatement((db, userId: string, amount: number) =>
  db
    .updateTable('users')
    .set((eb) => ({ held: eb('held', '-', amount) }))
    .where('id', '=', userId),
);

const expiredHoldsOf = preparedStatement((db, userId: string, nowIso: string) =>
  db.selectFrom('credit_holds').select('id').where('user_id', '=', userId).where('expires_at', '<', nowIso),
);

/** Holds `amount` of the user's credits; false (nothing changed) when the balance less what is held cannot cover it. */
export function* takeHold(db: Kysely<Tables>, hold: NewHold): Steps<boolean> {
  if (!(hold.amount > 0)) throw new Error('a hold must be positive');
  yield* releaseExpiredHolds(db, hold.userId, hold.nowIso);
  const taken = yield* statement(addHeldWhenCovered(db, hold.userId, hold.amount, hold.amount));
  if (Number(taken.numAffectedRows) !== 1) return false;
  yield* statement(insertHold(db, hold.id, hold.userId, hold.amount, hold.owner, hold.nodeId, hold.expiresIso, hold.nowIso));
  return true;
}

/**
 * Deletes a hold and says whose it was and what it held, leaving the user's `held` for the
 * caller to lower; undefined when it is gone already (released, or swept as expired). Only
 * the statement that deletes the row answers with it, so a sweep racing a release cannot
 * give the amount back twice.
 */
export function* takeOutHold(db: Kysely<Tables>, holdId: string): Steps<{ userId: string; amount: number } | undefined> {
  const [row] = (yield* statement(deleteHold(db, holdId))).rows;
  return row && { userId: row.user_id, amount: row.amount };
}

/** Lowers a user's `held` by a hold taken out of credit_holds. */
export function* lowerHeld(db: Kysely<Tables>, hold: { userId: string; amount: number }): Steps<void> {
  yield* statement(subtractHeld(db, hold.userId, hold.amount));
}

/** Lets a hold go; nothing when it is gone already. */
export function* releaseHold(db: Kysely<Tables>, holdId: string): Steps<void> {
  const hold = yield* takeOutHold(db, holdId);
  if (hold) yield* lowerHeld(db, hold);
}

/** Lets go of the user's holds whose calls can no longer be waiting on them. */
function* releaseExpiredHolds(db: Kysely<Tables>, userId: string, nowIso: string): Steps<void> {
  const expired = (yield* statement(expiredHoldsOf(db, userId, nowIso))).rows;
  for (const { id } of expired) yield* releaseHold(db, id);
}

/** The ids of the holds a node took: at its start, none of its calls is still under way. */
export async function holdsOfNode(db: Kysely<Tables>, nodeId: string): Promise<string[]> {
  return (await db.selectFrom('credit_holds').select('id').where('node_id', '=', nodeId).execute()).map((row) => row.id);
}

/**
 * The ids of the holds `owner` took ("run <execution id>"). Only calls under way have a row,
 * so the table stays small and is read without an index on the owner.
 */
export async function holdsOwnedBy(db: Kysely<Tables>, owner: string): Promise<string[]> {
  return (await db.selectFrom('credit_holds').select('id').where('owner', '=', owner).execute()).map((row) => row.id);
}

/**
 * The ids of the holds taken by other nodes that have not said they are alive since
 * `cutoffIso`, or that never did and took them before it: no call of theirs goes on.
 */
export async function holdsOfSilentNodes(db: Kysely<Tables>, selfNodeId: string, cutoffIso: string): Promise<string[]> {
  const rows = await db
    .selectFrom('credit_holds as h')
    .leftJoin('cluster_nodes as n', 'n.node_id', 'h.node_id')
    .select('h.id')
    .where('h.node_id', '!=', selfNodeId)
    .where((silent) =>
      silent.or([
        silent('n.seen_at', '<', cutoffIso),
        silent.and([silent('n.seen_at', 'is', null), silent('h.created_at', '<', cutoffIso)]),
      ]),
    )
    .execute();
  return rows.map((row) => row.id);
}

/** What a user can spend now: the balance less what is held for calls under way. */
export async function spendableOf(db: Kysely<Tables>, userId: string): Promise<number> {
  const row = await db.selectFrom('users').select(['balance', 'held']).where('id', '=', userId).executeTakeFirstOrThrow();
  return row.balance - row.held;
}

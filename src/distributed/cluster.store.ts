import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { ExecutionRow } from '../runs/executions.store.js';

export async function recordHeartbeat(db: Kysely<Tables>, nodeId: string, nowIso: string): Promise<void> {
  await db
    .insertInto('cluster_nodes')
    .values({ node_id: nodeId, seen_at: nowIso })
    .onConflict((conflict) => conflict.column('node_id').doUpdateSet({ seen_at: nowIso }))
    .execute();
}

/**
 * Takes or renews a lease in one statement: free, expired, or already ours. True when the
 * caller holds it afterwards.
 */
export async function acquireLease(
  db: Kysely<Tables>,
  lease: { name: string; holder: string; nowIso: string; expiresIso: string },
): Promise<boolean> {
  const row = await db
    .insertInto('cluster_leases')
    .values({ name: lease.name, holder: lease.holder, expires_at: lease.expiresIso })
    .onConflict((conflict) =>
      conflict
        .column('name')
        .doUpdateSet({ holder: lease.holder, expires_at: lease.expiresIso })
        .where((held) =>
          held.or([held('cluster_leases.expires_at', '<', lease.nowIso), held('cluster_leases.holder', '=', lease.holder)]),
        ),
    )
    .returning('holder')
    .executeTakeFirst();
  return row?.holder === lease.holder;
}

/** Working runs owned by another node that has not said it is alive since `cutoffIso` (or never). */
export function runsOfSilentNodes(db: Kysely<Tables>, selfNodeId: string, cutoffIso: string): Promise<ExecutionRow[]> {
  return db
    .selectFrom('executions as e')
    .leftJoin('cluster_nodes as n', 'n.node_id', 'e.owner_node')
    .selectAll('e')
    .where('e.status', '=', 'working')
    .where('e.owner_node', 'is not', null)
    .where('e.owner_node', '!=', selfNodeId)
    .where((silent) => silent.or([silent('n.seen_at', 'is', null), silent('n.seen_at', '<', cutoffIso)]))
    .execute();
}

/** Working runs no node has taken, claimed before `cutoffIso`: waiting in the queue, or lost from it. */
export function unownedRunsSince(db: Kysely<Tables>, cutoffIso: string): Promise<ExecutionRow[]> {
  return db
    .selectFrom('executions')
    .selectAll()
    .where('status', '=', 'working')
    .where('owner_node', 'is', null)
    .where('started_at', '<', cutoffIso)
    .execute();
}

import type { Kysely, Selectable } from 'kysely';
import type { ExecutionStatus, ExecutionsTable, Tables } from '../db/tables.js';

export type ExecutionRow = Selectable<ExecutionsTable>;

export async function insertExecution(db: Kysely<Tables>, row: Omit<ExecutionRow, 'id'>): Promise<ExecutionRow> {
  return db.insertInto('executions').values(row).returningAll().executeTakeFirstOrThrow();
}

/** An execution as the workspace sees it: another workspace's is not there at all. */
export function findInWorkspace(db: Kysely<Tables>, workspaceId: string, executionId: string): Promise<ExecutionRow | undefined> {
  return db
    .selectFrom('executions')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('execution_id', '=', executionId)
    .executeTakeFirst();
}

export function findExecution(db: Kysely<Tables>, executionId: string): Promise<ExecutionRow | undefined> {
  return db.selectFrom('executions').selectAll().where('execution_id', '=', executionId).executeTakeFirst();
}

/** Frees an idempotency key whose window has passed, so a new execution can take it. */
export async function releaseIdempotencyKey(db: Kysely<Tables>, executionId: string): Promise<void> {
  await db.updateTable('executions').set({ idempotency_key: null }).where('execution_id', '=', executionId).execute();
}

export function findByIdempotencyKey(db: Kysely<Tables>, workspaceId: string, key: string): Promise<ExecutionRow | undefined> {
  return db
    .selectFrom('executions')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();
}

export interface HistoryFilter {
  workspaceId: string;
  limit: number;
  offset: number;
  sources: string[];
  interfaces: string[];
  statuses: ExecutionStatus[];
  /** Executions created before this that never started a run are left out (abandoned attempts). */
  neverStartedBeforeIso: string;
}

/** One page of history, newest first, and one row more than asked to tell whether more exist. */
export function historyPage(db: Kysely<Tables>, filter: HistoryFilter): Promise<ExecutionRow[]> {
  return db
    .selectFrom('executions')
    .selectAll()
    .where('workspace_id', '=', filter.workspaceId)
    .$if(filter.sources.length > 0, (q) => q.where('source', 'in', filter.sources))
    .$if(filter.interfaces.length > 0, (q) => q.where('interface', 'in', filter.interfaces))
    .$if(filter.statuses.length > 0, (q) => q.where('status', 'in', filter.statuses))
    .where((eb) =>
      eb.or([eb('started_at', 'is not', null), eb('status', '!=', 'idle'), eb('created_at', '>=', filter.neverStartedBeforeIso)]),
    )
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .offset(filter.offset)
    .execute();
}

/**
 * Moves an idle execution to working; false when it was not idle. A second working
 * execution in its workspace fails on the database's one-working index.
 */
export async function claimIdleExecution(
  db: Kysely<Tables>,
  executionId: string,
  /** nodeId null: the run waits in the cluster's queue for a worker to take it. */
  claim: { nowIso: string; nodeId: string | null },
): Promise<boolean> {
  const claimed = await db
    .updateTable('executions')
    .set({ status: 'working', started_at: claim.nowIso, completed_at: null, stop_reason: null, owner_node: claim.nodeId })
    .where('execution_id', '=', executionId)
    .where('status', '=', 'idle')
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1;
}

/** Whether a workspace has an execution running now. */
export async function hasWorkingExecution(db: Kysely<Tables>, workspaceId: string): Promise<boolean> {
  const row = await db
    .selectFrom('executions')
    .select('execution_id')
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', 'working')
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * The runs a node left working: its own, and, on a single node, those no node owns (rows
 * from before runs had owners). In a cluster an unowned run is one waiting in the queue.
 */
export function workingExecutionsOf(db: Kysely<Tables>, nodeId: string, clustered: boolean): Promise<ExecutionRow[]> {
  return db
    .selectFrom('executions')
    .selectAll()
    .where('status', '=', 'working')
    .where((where) =>
      clustered
        ? where('owner_node', '=', nodeId)
        : where.or([where('owner_node', '=', nodeId), where('owner_node', 'is', null)]),
    )
    .execute();
}

/**
 * Makes a node the owner of a queued run; false when the run was stopped while it waited or
 * another node took it first. The one statement is what keeps two takers apart.
 */
export async function takeQueuedRun(db: Kysely<Tables>, executionId: string, nodeId: string): Promise<boolean> {
  const taken = await db
    .updateTable('executions')
    .set({ owner_node: nodeId })
    .where('execution_id', '=', executionId)
    .where('status', '=', 'working')
    .where('owner_node', 'is', null)
    .executeTakeFirst();
  return Number(taken.numUpdatedRows) === 1;
}

/** The stored frames of an execution's agent.message events, in order. */
export async function agentMessageFrames(db: Kysely<Tables>, executionId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('execution_events')
    .select('frame')
    .where('execution_id', '=', executionId)
    .where('type', '=', 'agent.message')
    .orderBy('sequence')
    .execute();
  return rows.map((row) => row.frame);
}

/** How many executions of one user (in any workspace) are running now. */
export async function countWorkingForUser(db: Kysely<Tables>, userId: string): Promise<number> {
  const row = await db
    .selectFrom('executions')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('user_id', '=', userId)
    .where('status', '=', 'working')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** The frame of an execution's latest user.message, which started its current run. */
export function latestRunStart(
  db: Kysely<Tables>,
  executionId: string,
): Promise<{ sequence: number; frame: string } | undefined> {
  return db
    .selectFrom('execution_events')
    .select(['sequence', 'frame'])
    .where('execution_id', '=', executionId)
    .where('type', '=', 'user.message')
    .orderBy('sequence', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Lets go of a run whose owner was lost, so a worker can take it from the queue again; false
 * when the run has ended or another node already did.
 */
export async function releaseLostRun(db: Kysely<Tables>, executionId: string, lostOwner: string): Promise<boolean> {
  const released = await db
    .updateTable('executions')
    .set({ owner_node: null })
    .where('execution_id', '=', executionId)
    .where('status', '=', 'working')
    .where('owner_node', '=', lostOwner)
    .executeTakeFirst();
  return Number(released.numUpdatedRows) === 1;
}

/** Whether a node still owns an execution's run: false once the run was handed on (or ended and taken again). */
export async function ownsRun(db: Kysely<Tables>, executionId: string, nodeId: string): Promise<boolean> {
  const row = await db.selectFrom('executions').select('owner_node').where('execution_id', '=', executionId).executeTakeFirst();
  return row?.owner_node === nodeId;
}

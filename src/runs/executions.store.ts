import { type Kysely, type Selectable, sql } from 'kysely';
import { sharedRead } from '../db/locks.js';
import type { Tables } from '../db/tables.js';
import type { ExecutionStatus, ExecutionsTable } from '../db/tables-runs.js';

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
  /**
   * nodeId null: the run waits in the cluster's queue for a worker to take it. `text` is the
   * message that starts the run: the first run's is the execution's input (what the history
   * shows), whatever create was given; a resume keeps the input.
   */
  claim: { nowIso: string; nodeId: string | null; text: string },
): Promise<boolean> {
  const claimed = await db
    .updateTable('executions')
    .set({
      status: 'working',
      // SET reads the row as it was, so this sees started_at before the claim sets it.
      input_text: sql<string>`case when started_at is null then ${claim.text} else input_text end`,
      started_at: claim.nowIso,
      completed_at: null,
      stop_reason: null,
      owner_node: claim.nodeId,
      owner_attempt: null,
    })
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
 * Who holds a working run: a node, and (a run taken from the cluster's queue) which of that
 * node's attempts at it. One node can be handed the same run twice, when the cluster took it
 * for silent while its first attempt still ran; the attempt tells the two apart.
 */
export interface RunOwner {
  node: string;
  attempt: string | null;
}

/**
 * Makes a node's attempt the owner of a queued run; false when the run was stopped while it
 * waited or another node took it first. The one statement is what keeps two takers apart.
 */
export async function takeQueuedRun(db: Kysely<Tables>, executionId: string, owner: RunOwner): Promise<boolean> {
  const taken = await db
    .updateTable('executions')
    .set({ owner_node: owner.node, owner_attempt: owner.attempt })
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

/** The owner a working run has now: null when it has ended, or waits in the queue. */
export async function ownerOf(db: Kysely<Tables>, executionId: string): Promise<RunOwner | null> {
  const row = await db
    .selectFrom('executions')
    .select(['owner_node', 'owner_attempt'])
    .where('execution_id', '=', executionId)
    .where('status', '=', 'working')
    .executeTakeFirst();
  return row?.owner_node ? { node: row.owner_node, attempt: row.owner_attempt } : null;
}

/**
 * Lets go of a run whose owner was lost, so a worker can take it from the queue again; false
 * when the run has ended, or another node or a later attempt holds it. On PostgreSQL this
 * waits for a charge the lost owner has in flight (ownsRun, held): the next attempt's journal
 * then shows that call as paid for, and does not make it again.
 */
export async function releaseLostRun(db: Kysely<Tables>, executionId: string, lost: RunOwner): Promise<boolean> {
  const released = await db
    .updateTable('executions')
    .set({ owner_node: null, owner_attempt: null })
    .where('execution_id', '=', executionId)
    .where('status', '=', 'working')
    .where('owner_node', '=', lost.node)
    .where((attempt) =>
      lost.attempt === null ? attempt('owner_attempt', 'is', null) : attempt('owner_attempt', '=', lost.attempt),
    )
    .executeTakeFirst();
  return Number(released.numUpdatedRows) === 1;
}

/**
 * Whether an attempt still owns an execution's run: false once the run was handed on (or
 * ended and taken again), to another node or to a later attempt of the same one. `held`: the
 * caller's transaction is about to commit what only the owner may (a model call's charge),
 * and the run is kept from being released until it has.
 */
export async function ownsRun(
  db: Kysely<Tables>,
  executionId: string,
  owner: RunOwner,
  options: { held?: boolean } = {},
): Promise<boolean> {
  const read = db.selectFrom('executions').select(['owner_node', 'owner_attempt']).where('execution_id', '=', executionId);
  const row = await (options.held ? sharedRead(db, read) : read).executeTakeFirst();
  return row?.owner_node === owner.node && row.owner_attempt === owner.attempt;
}

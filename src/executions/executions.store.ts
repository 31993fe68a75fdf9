import type { Kysely, Selectable } from 'kysely';
import type { ExecutionsTable, Tables } from '../db/tables.js';

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
}

/** One page of history, newest first, and one row more than asked to tell whether more exist. */
export function historyPage(db: Kysely<Tables>, filter: HistoryFilter): Promise<ExecutionRow[]> {
  return db
    .selectFrom('executions')
    .selectAll()
    .where('workspace_id', '=', filter.workspaceId)
    .$if(filter.sources.length > 0, (q) => q.where('source', 'in', filter.sources))
    .$if(filter.interfaces.length > 0, (q) => q.where('interface', 'in', filter.interfaces))
    .orderBy('id', 'desc')
    .limit(filter.limit + 1)
    .offset(filter.offset)
    .execute();
}

/**
 * Moves an idle execution to working; false when it was not idle. A second working
 * execution in its workspace fails on the database's one-working index.
 */
export async function claimIdleExecution(db: Kysely<Tables>, executionId: string, nowIso: string): Promise<boolean> {
  const claimed = await db
    .updateTable('executions')
    .set({ status: 'working', started_at: nowIso, completed_at: null, stop_reason: null })
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

export function workingExecutions(db: Kysely<Tables>): Promise<ExecutionRow[]> {
  return db.selectFrom('executions').selectAll().where('status', '=', 'working').execute();
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

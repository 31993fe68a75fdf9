import { type Kysely, type Selectable, sql } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { ExecutionFilesTable, InputFilesTable } from '../db/tables-runs.js';

export type InputFileRow = Selectable<InputFilesTable>;
export type ExecutionFileRow = Selectable<ExecutionFilesTable>;

export async function insertInputFile(db: Kysely<Tables>, row: Omit<InputFileRow, 'number'>): Promise<void> {
  await db.insertInto('input_files').values(row).execute();
}

/** A file as a workspace sees it: another workspace's is not there at all. */
export function findInWorkspace(db: Kysely<Tables>, workspaceId: string, id: string): Promise<InputFileRow | undefined> {
  return db.selectFrom('input_files').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
}

/** Newest first. */
export function filePage(db: Kysely<Tables>, workspaceId: string, limit: number, offset: number): Promise<InputFileRow[]> {
  return db
    .selectFrom('input_files')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('number', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countInWorkspace(db: Kysely<Tables>, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('input_files')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function deleteInputFiles(db: Kysely<Tables>, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('input_files').where('id', 'in', ids).execute();
}

/** At most `limit` files whose expiry has passed. */
export function expiredFiles(db: Kysely<Tables>, nowIso: string, limit: number): Promise<InputFileRow[]> {
  return db.selectFrom('input_files').selectAll().where('expires_at', '<=', nowIso).limit(limit).execute();
}

/**
 * Files a run was given are kept at least until `untilIso` (a later expiry stays). Returns
 * how many of them are still there.
 */
export async function keepUntil(db: Kysely<Tables>, ids: string[], untilIso: string): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable('input_files')
    .set({ expires_at: sql<string>`case when expires_at > ${untilIso} then expires_at else ${untilIso} end` })
    .where('id', 'in', ids)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/**
 * Files kept for good before attached files had a retention (their expiry was null) get one
 * from now. Returns how many.
 */
export async function endKeepingForGood(db: Kysely<Tables>, untilIso: string): Promise<number> {
  const result = await db
    .updateTable('input_files')
    .set({ expires_at: untilIso })
    .where('expires_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertExecutionFiles(db: Kysely<Tables>, rows: ExecutionFileRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('execution_files').values(rows).execute();
}

/** What an execution was given, in the order asked for. */
export function filesOfExecution(db: Kysely<Tables>, executionId: string): Promise<ExecutionFileRow[]> {
  return db.selectFrom('execution_files').selectAll().where('execution_id', '=', executionId).orderBy('position').execute();
}

/** Files by id, whatever their workspace: for a run, whose links were checked when it was created. */
export function inputFilesById(db: Kysely<Tables>, ids: string[]): Promise<InputFileRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('input_files').selectAll().where('id', 'in', ids).execute();
}

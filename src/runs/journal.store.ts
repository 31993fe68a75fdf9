import { type Kysely, sql } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { CheckpointArea, JournalKind } from '../db/tables-runs.js';
import type { CheckpointFile } from './checkpoint-files.js';

/** One run of an execution: its journal is keyed by the sequence of the run's user.message. */
export interface JournalKey {
  executionId: string;
  runStart: number;
}

export interface JournalRow {
  kind: JournalKind;
  body: string;
  created_at: string;
}

/** Appends a step, numbered one past the run's last by the insert itself. */
export async function appendStep(trx: Kysely<Tables>, key: JournalKey, row: JournalRow): Promise<void> {
  await trx
    .insertInto('run_journal')
    .values((eb) => ({
      execution_id: key.executionId,
      run_start: key.runStart,
      kind: row.kind,
      body: row.body,
      created_at: row.created_at,
      step: eb
        .selectFrom('run_journal')
        .select(sql<number>`coalesce(max(step), 0) + 1`.as('next'))
        .where('execution_id', '=', key.executionId)
        .where('run_start', '=', key.runStart),
    }))
    .execute();
}

export function stepsOf(db: Kysely<Tables>, key: JournalKey): Promise<JournalRow[]> {
  return db
    .selectFrom('run_journal')
    .select(['kind', 'body', 'created_at'])
    .where('execution_id', '=', key.executionId)
    .where('run_start', '=', key.runStart)
    .orderBy('step')
    .execute();
}

export async function checkpointOf(db: Kysely<Tables>, key: JournalKey, area: CheckpointArea): Promise<CheckpointFile[]> {
  const rows = await db
    .selectFrom('run_checkpoint_files')
    .select(['path', 'sha256', 'size'])
    .where('execution_id', '=', key.executionId)
    .where('run_start', '=', key.runStart)
    .where('area', '=', area)
    .orderBy('path')
    .execute();
  return rows.map((row) => ({ ...row, size: Number(row.size) }));
}

/** Brings a folder's checkpoint up to date: files new or changed, and files gone. */
export async function saveCheckpoint(
  trx: Kysely<Tables>,
  key: JournalKey,
  area: CheckpointArea,
  changes: { changed: CheckpointFile[]; removed: string[] },
): Promise<void> {
  const where = { execution_id: key.executionId, run_start: key.runStart, area };
  for (let start = 0; start < changes.removed.length; start += 500) {
    await trx
      .deleteFrom('run_checkpoint_files')
      .where('execution_id', '=', where.execution_id)
      .where('run_start', '=', where.run_start)
      .where('area', '=', area)
      .where('path', 'in', changes.removed.slice(start, start + 500))
      .execute();
  }
  // Batches stay well under every backend's limit on bound parameters.
  for (let start = 0; start < changes.changed.length; start += 200) {
    const rows = changes.changed.slice(start, start + 200).map((file) => ({ ...where, ...file }));
    await trx
      .insertInto('run_checkpoint_files')
      .values(rows)
      .onConflict((oc) =>
        oc
          .columns(['execution_id', 'run_start', 'area', 'path'])
          .doUpdateSet((eb) => ({ sha256: eb.ref('excluded.sha256'), size: eb.ref('excluded.size') })),
      )
      .execute();
  }
}

/** Of the given blobs, those a checkpoint of the execution still names (any of its runs, any area). */
export async function namedByCheckpoints(db: Kysely<Tables>, executionId: string, sha256s: string[]): Promise<Set<string>> {
  const named = new Set<string>();
  for (let start = 0; start < sha256s.length; start += 500) {
    const rows = await db
      .selectFrom('run_checkpoint_files')
      .select('sha256')
      .distinct()
      .where('execution_id', '=', executionId)
      .where('sha256', 'in', sha256s.slice(start, start + 500))
      .execute();
    for (const row of rows) named.add(row.sha256);
  }
  return named;
}

/** Of the given executions, those working now. */
export async function workingAmong(db: Kysely<Tables>, executionIds: string[]): Promise<Set<string>> {
  const working = new Set<string>();
  for (let start = 0; start < executionIds.length; start += 500) {
    const rows = await db
      .selectFrom('executions')
      .select('execution_id')
      .where('status', '=', 'working')
      .where('execution_id', 'in', executionIds.slice(start, start + 500))
      .execute();
    for (const row of rows) working.add(row.execution_id);
  }
  return working;
}

/** Drops every journal of an execution once its run has ended. */
export async function dropJournals(db: Kysely<Tables>, executionId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('run_checkpoint_files').where('execution_id', '=', executionId).execute();
    await trx.deleteFrom('run_journal').where('execution_id', '=', executionId).execute();
  });
}

/** How many steps of a kind a run's journal holds. */
export async function countSteps(db: Kysely<Tables>, key: JournalKey, kind: JournalKind): Promise<number> {
  const row = await db
    .selectFrom('run_journal')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('execution_id', '=', key.executionId)
    .where('run_start', '=', key.runStart)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

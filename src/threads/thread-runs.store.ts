import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { ThreadRunsTable } from '../db/tables-threads.js';

export type ThreadRunRow = Selectable<ThreadRunsTable>;

export async function recordThreadRun(db: Kysely<Tables>, row: ThreadRunRow): Promise<void> {
  await db.insertInto('thread_runs').values(row).execute();
}

/** The thread that started a run, if one did. */
export function threadRunOf(db: Kysely<Tables>, executionId: string): Promise<ThreadRunRow | undefined> {
  return db.selectFrom('thread_runs').selectAll().where('execution_id', '=', executionId).executeTakeFirst();
}

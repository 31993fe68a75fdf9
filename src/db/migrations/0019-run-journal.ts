import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

/**
 * The journal of an agent run (issue 30): each step it completed (a model call's answer, a
 * tool call's result, a call with effects outside the sandbox as it starts), so that a run
 * whose worker was lost can go on from where it was on another worker. `run_start` is the
 * sequence of the run's user.message: an execution runs again after an interrupt, and each
 * run has its own journal. Beside it, the run's files as they stood after its latest step,
 * by path and blob, so the next worker can put them back.
 */
export function runJournalMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('run_journal')
        .addColumn('execution_id', 'text', (c) => c.notNull().references('executions.execution_id').onDelete('cascade'))
        .addColumn('run_start', 'integer', (c) => c.notNull())
        .addColumn('step', 'integer', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint('run_journal_pk', ['execution_id', 'run_start', 'step'])
        .execute();
      await db.schema
        .createTable('run_checkpoint_files')
        .addColumn('execution_id', 'text', (c) => c.notNull().references('executions.execution_id').onDelete('cascade'))
        .addColumn('run_start', 'integer', (c) => c.notNull())
        .addColumn('area', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('run_checkpoint_files_pk', ['execution_id', 'run_start', 'area', 'path'])
        .execute();
      // Blob collection asks whether anything still points at a blob.
      await db.schema.createIndex('run_checkpoint_files_by_blob').on('run_checkpoint_files').column('sha256').execute();
    },
  };
}

import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

/**
 * Agent threads (DESIGN §13): a thread per workspace, agent and client-chosen thread id;
 * its records in order, each stored as the SSE frame subscribers get; the approvals its
 * agent asked for; and the runs it started, so their end can be told to the thread.
 */
export function agentThreadsMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('agent_threads')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('thread_id', 'text', (c) => c.notNull())
        .addColumn('last_sequence', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addUniqueConstraint('agent_threads_one_per_name', ['workspace_id', 'agent_id', 'thread_id'])
        .execute();
      await db.schema
        .createTable('thread_records')
        .addColumn('thread_row_id', 'text', (c) => c.notNull().references('agent_threads.id').onDelete('cascade'))
        .addColumn('sequence', 'integer', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('frame', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint('thread_records_pk', ['thread_row_id', 'sequence'])
        .execute();
      await db.schema
        .createTable('thread_approvals')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('thread_row_id', 'text', (c) => c.notNull().references('agent_threads.id').onDelete('cascade'))
        .addColumn('tool', 'text', (c) => c.notNull())
        .addColumn('input', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addColumn('decided_at', t.timestamp)
        .addColumn('decided_by', 'text')
        .execute();
      await db.schema
        .createTable('thread_runs')
        .addColumn('execution_id', 'text', (c) => c.primaryKey())
        .addColumn('thread_row_id', 'text', (c) => c.notNull().references('agent_threads.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .execute();
    },
  };
}

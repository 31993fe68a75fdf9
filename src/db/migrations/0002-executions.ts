import { type Kysely, type Migration, sql } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export function executionsMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('executions')
        .addColumn('id', t.serial, (c) => (t.serial === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('execution_id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('skill_slug', 'text', (c) => c.notNull())
        .addColumn('skill_name', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('interface', 'text', (c) => c.notNull())
        .addColumn('input_text', 'text', (c) => c.notNull())
        .addColumn('cost', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('parent_execution_id', 'text')
        .addColumn('last_sequence', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('stop_reason', 'text')
        .addColumn('idempotency_key', 'text')
        .addColumn('idempotency_fingerprint', 'text')
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addColumn('started_at', t.timestamp)
        .addColumn('completed_at', t.timestamp)
        .execute();
      // One running execution per workspace, held by the database itself, so it holds
      // across processes and nodes: a second start fails on this index.
      await db.schema
        .createIndex('executions_one_working')
        .on('executions')
        .column('workspace_id')
        .unique()
        .where(sql.ref('status'), '=', 'working')
        .execute();
      await db.schema.createIndex('executions_history').on('executions').columns(['workspace_id', 'id']).execute();
      await db.schema
        .createIndex('executions_idempotency')
        .on('executions')
        .columns(['workspace_id', 'idempotency_key'])
        .unique()
        .where(sql.ref('idempotency_key'), 'is not', null)
        .execute();

      await db.schema
        .createTable('execution_events')
        .addColumn('execution_id', 'text', (c) => c.notNull().references('executions.execution_id').onDelete('cascade'))
        .addColumn('sequence', 'integer', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('frame', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint('execution_events_pk', ['execution_id', 'sequence'])
        .execute();
    },
  };
}

import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

/**
 * Input files (DESIGN §15): files a workspace uploads for its runs, and which files each
 * execution was given. A link keeps the ids it was made with and no foreign key to them, so
 * deleting a file or an artifact leaves the run's record as it was.
 */
export function inputFilesMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('input_files')
        .addColumn('number', t.serial, (c) => (t.serial === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('filename', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('mime_type', 'text', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addColumn('expires_at', t.timestamp)
        .execute();
      await db.schema.createIndex('input_files_by_workspace').on('input_files').columns(['workspace_id', 'number']).execute();
      // Blob collection asks whether anything still points at a blob; the sweep, what has expired.
      await db.schema.createIndex('input_files_by_blob').on('input_files').column('sha256').execute();
      await db.schema.createIndex('input_files_by_expiry').on('input_files').column('expires_at').execute();

      await db.schema
        .createTable('execution_files')
        .addColumn('execution_id', 'text', (c) => c.notNull().references('executions.execution_id').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('file_id', 'text')
        .addColumn('artifact_id', 'text')
        .addPrimaryKeyConstraint('execution_files_pk', ['execution_id', 'position'])
        .execute();
    },
  };
}

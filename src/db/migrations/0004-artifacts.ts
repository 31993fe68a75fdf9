import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export function artifactsMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('artifacts')
        .addColumn('number', t.serial, (c) => (t.serial === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('execution_id', 'text', (c) => c.notNull().references('executions.execution_id').onDelete('cascade'))
        .addColumn('skill_slug', 'text', (c) => c.notNull())
        .addColumn('skill_name', 'text', (c) => c.notNull())
        .addColumn('title', 'text', (c) => c.notNull())
        .addColumn('file_type', 'text', (c) => c.notNull())
        .addColumn('artifact_type', 'text', (c) => c.notNull())
        .addColumn('input_text', 'text', (c) => c.notNull())
        .addColumn('content_size', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('created_skill_slug', 'text')
        .addColumn('metadata', 'text')
        .addColumn('is_installed', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('bundle_type', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('cost', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('execution_time_ms', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addColumn('is_public', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('manifest', 'text')
        .addColumn('main_path', 'text')
        .execute();
      await db.schema.createIndex('artifacts_by_workspace').on('artifacts').columns(['workspace_id', 'number']).execute();

      await db.schema
        .createTable('artifact_files')
        .addColumn('artifact_id', 'text', (c) => c.notNull().references('artifacts.id').onDelete('cascade'))
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('sha256', 'text', (c) => c.notNull())
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('crc32', 'bigint', (c) => c.notNull())
        .addColumn('mime_type', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('artifact_files_pk', ['artifact_id', 'path'])
        .execute();
      // Blob collection asks whether anything still points at a blob.
      await db.schema.createIndex('artifact_files_by_blob').on('artifact_files').column('sha256').execute();

      await db.schema
        .createTable('workspace_skills')
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('slug', 'text', (c) => c.notNull())
        .addColumn('artifact_id', 'text')
        .addColumn('dir', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint('workspace_skills_pk', ['workspace_id', 'slug'])
        .execute();
    },
  };
}

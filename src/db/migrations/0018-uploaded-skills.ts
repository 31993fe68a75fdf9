import type { Kysely, Migration } from 'kysely';

/**
 * The files of skills installed from a folder a person uploaded (issue 28, `skillet skills
 * install PATH`), rather than from a skill artifact a run wrote: their blobs, by path, so
 * any node of a cluster can write the skill's folder out of the shared blob store.
 */
export const uploadedSkillsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('uploaded_skill_files')
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('slug', 'text', (c) => c.notNull())
      .addColumn('path', 'text', (c) => c.notNull())
      .addColumn('sha256', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('uploaded_skill_files_pk', ['workspace_id', 'slug', 'path'])
      .addForeignKeyConstraint(
        'uploaded_skill_files_skill',
        ['workspace_id', 'slug'],
        'workspace_skills',
        ['workspace_id', 'slug'],
        (c) => c.onDelete('cascade'),
      )
      .execute();
    // Blob collection asks whether anything still points at a blob.
    await db.schema.createIndex('uploaded_skill_files_by_blob').on('uploaded_skill_files').column('sha256').execute();
  },
};

import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { UploadedSkillFilesTable } from '../db/tables-artifacts.js';

export type UploadedSkillFileRow = Selectable<UploadedSkillFilesTable>;

export async function insertUploadedFiles(db: Kysely<Tables>, rows: UploadedSkillFileRow[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('uploaded_skill_files').values(rows).execute();
}

export function uploadedFilesOf(db: Kysely<Tables>, workspaceId: string, slug: string): Promise<UploadedSkillFileRow[]> {
  return db
    .selectFrom('uploaded_skill_files')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .orderBy('path')
    .execute();
}

import type { Kysely, Selectable } from 'kysely';
import type { Tables, UploadedSkillFilesTable } from '../db/tables.js';

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

/** Which of these blobs an uploaded skill still holds, for blob collection. */
export async function blobsOfUploadedSkills(db: Kysely<Tables>, sha256s: string[]): Promise<Set<string>> {
  const used = new Set<string>();
  for (let start = 0; start < sha256s.length; start += 500) {
    const rows = await db
      .selectFrom('uploaded_skill_files')
      .select('sha256')
      .distinct()
      .where('sha256', 'in', sha256s.slice(start, start + 500))
      .execute();
    for (const row of rows) used.add(row.sha256);
  }
  return used;
}

import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';

/** What a workspace keeps of what people upload: its input files, and the files of skills installed from folders. */
export interface StoredUsage {
  files: number;
  /** Input files' bytes and folder-installed skills' bytes together. */
  bytes: number;
}

export async function storedUsage(db: Kysely<Tables>, workspaceId: string): Promise<StoredUsage> {
  const [files, skillFiles] = await Promise.all([
    db
      .selectFrom('input_files')
      .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.sum<number | string | null>('size').as('bytes')])
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('uploaded_skill_files')
      .select((eb) => eb.fn.sum<number | string | null>('size').as('bytes'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow(),
  ]);
  // PostgreSQL answers counts and sums of bigints as strings.
  return { files: Number(files.count), bytes: Number(files.bytes ?? 0) + Number(skillFiles.bytes ?? 0) };
}

export async function installedSkillCount(db: Kysely<Tables>, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('workspace_skills')
    .select((eb) => eb.fn.countAll<number | string>().as('count'))
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

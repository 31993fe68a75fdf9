import type { Kysely, Selectable } from 'kysely';
import type { Tables, WorkspaceSkillsTable } from '../db/tables.js';

export function findInstalledSkill(
  db: Kysely<Tables>,
  workspaceId: string,
  slug: string,
): Promise<Selectable<WorkspaceSkillsTable> | undefined> {
  return db
    .selectFrom('workspace_skills')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .executeTakeFirst();
}

export function isSlugTaken(db: Kysely<Tables>, workspaceId: string, slug: string): Promise<{ slug: string } | undefined> {
  return db
    .selectFrom('workspace_skills')
    .select('slug')
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .executeTakeFirst();
}

export async function recordInstalledSkill(db: Kysely<Tables>, row: WorkspaceSkillsTable): Promise<void> {
  await db.insertInto('workspace_skills').values(row).execute();
}

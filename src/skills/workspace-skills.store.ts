import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { WorkspaceSkillsTable } from '../db/tables-artifacts.js';

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

/** The skills installed into one workspace, in slug order. */
export function installedSkillsOf(db: Kysely<Tables>, workspaceId: string): Promise<Selectable<WorkspaceSkillsTable>[]> {
  return db.selectFrom('workspace_skills').selectAll().where('workspace_id', '=', workspaceId).orderBy('slug').execute();
}

/** Forgets an installed skill and its stored files; answers the digests of the files it had. */
export async function deleteInstalledSkill(db: Kysely<Tables>, workspaceId: string, slug: string): Promise<string[]> {
  const files = await db
    .deleteFrom('uploaded_skill_files')
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .returning('sha256')
    .execute();
  await db.deleteFrom('workspace_skills').where('workspace_id', '=', workspaceId).where('slug', '=', slug).execute();
  return files.map((file) => file.sha256);
}

/** Whether a run of the skill is under way in the workspace (its folder is in use). */
export async function hasRunInProgress(db: Kysely<Tables>, workspaceId: string, slug: string): Promise<boolean> {
  const row = await db
    .selectFrom('executions')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('skill_slug', '=', slug)
    .where('status', '=', 'working')
    .executeTakeFirst();
  return row !== undefined;
}

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { Tables, WorkspaceSkillsTable } from '../db/tables.js';
import { parseSkillManifest } from './manifest.js';
import type { Skill } from './registry.js';

/**
 * A skill a workspace can run: one of the server's, or one installed into the workspace
 * from a skill artifact. The server's come first, and installing never shadows one.
 */
export async function findSkill(ctx: AppContext, workspaceId: string, slug: string): Promise<Skill | undefined> {
  const shared = ctx.skills.get(slug);
  if (shared) return shared;
  const installed = await ctx.db
    .selectFrom('workspace_skills')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!installed) return undefined;
  const source = await readFile(path.join(installed.dir, 'SKILL.md'), 'utf8').catch((error: NodeJS.ErrnoException) => {
    // Its folder was removed by hand: the skill is no longer there to run.
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (source === undefined) return undefined;
  return { ...parseSkillManifest(source, slug), slug, dir: installed.dir, builtIn: false };
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

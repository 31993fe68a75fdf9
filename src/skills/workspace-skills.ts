import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Selectable } from 'kysely';
import type { AppContext } from '../context.js';
import type { WorkspaceSkillsTable } from '../db/tables-artifacts.js';
import type { Skill } from '../ports/skills.js';
import { localSkillFolder } from './installed-skill-folder.js';
import { parseSkillManifest } from './manifest.js';
import { findInstalledSkill, installedSkillsOf } from './workspace-skills.store.js';

type SkillContext = Pick<AppContext, 'db' | 'skills' | 'blobs' | 'config'>;

/** An installed skill as it runs: its folder on this node, its manifest read from it. */
async function skillOfRow(ctx: SkillContext, installed: Selectable<WorkspaceSkillsTable>): Promise<Skill | undefined> {
  const dir = await localSkillFolder(ctx, installed);
  if (dir === undefined) return undefined;
  const source = await readFile(path.join(dir, 'SKILL.md'), 'utf8');
  return { ...parseSkillManifest(source, installed.slug), slug: installed.slug, dir, builtIn: false };
}

/**
 * A skill a workspace can run: one of the server's, or one installed into the workspace
 * from a skill artifact. The server's come first, and installing never shadows one.
 */
export async function findSkill(ctx: SkillContext, workspaceId: string, slug: string): Promise<Skill | undefined> {
  const shared = ctx.skills.get(slug);
  if (shared) return shared;
  const installed = await findInstalledSkill(ctx.db, workspaceId, slug);
  return installed && skillOfRow(ctx, installed);
}

/**
 * The skills installed into one workspace, in slug order. One whose files are gone (its
 * artifact deleted) is left out: it cannot run either.
 */
export async function workspaceSkills(ctx: SkillContext, workspaceId: string): Promise<Skill[]> {
  const skills: Skill[] = [];
  for (const installed of await installedSkillsOf(ctx.db, workspaceId)) {
    const skill = await skillOfRow(ctx, installed);
    if (skill) skills.push(skill);
  }
  return skills;
}

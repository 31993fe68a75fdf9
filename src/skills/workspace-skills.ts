import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../context.js';
import { localSkillFolder } from './installed-skill-folder.js';
import { parseSkillManifest } from './manifest.js';
import type { Skill } from './registry.js';
import { findInstalledSkill } from './workspace-skills.store.js';

/**
 * A skill a workspace can run: one of the server's, or one installed into the workspace
 * from a skill artifact. The server's come first, and installing never shadows one.
 */
export async function findSkill(
  ctx: Pick<AppContext, 'db' | 'skills' | 'blobs' | 'config'>,
  workspaceId: string,
  slug: string,
): Promise<Skill | undefined> {
  const shared = ctx.skills.get(slug);
  if (shared) return shared;
  const installed = await findInstalledSkill(ctx.db, workspaceId, slug);
  if (!installed) return undefined;
  const dir = await localSkillFolder(ctx, installed);
  if (dir === undefined) return undefined;
  const source = await readFile(path.join(dir, 'SKILL.md'), 'utf8');
  return { ...parseSkillManifest(source, slug), slug, dir, builtIn: false };
}

import type { AppContext } from '../context.js';
import type { Skill } from '../ports/skills.js';
import { findSkill } from '../skills/workspace-skills.js';
import { installedSlugs } from './thread-agent-skills.store.js';

/** Installed skills read per listing; a workspace with more shows its first ones by slug. */
const INSTALLED_MAX = 200;

type SkillDeps = Pick<AppContext, 'db' | 'skills' | 'blobs' | 'config'>;

/**
 * Every skill a workspace can run: the server's, then those installed into the workspace
 * (each read as findSkill reads it, so what is listed is exactly what start_run finds; an
 * installed slug the server also has is the server's, as findSkill has it).
 */
export async function workspaceSkills(ctx: SkillDeps, workspaceId: string): Promise<Skill[]> {
  const shared = ctx.skills.list();
  const installed: Skill[] = [];
  for (const slug of await installedSlugs(ctx.db, workspaceId, INSTALLED_MAX)) {
    if (ctx.skills.get(slug)) continue;
    // One broken install (its folder gone, its SKILL.md unreadable) must not hide the rest.
    const skill = await findSkill(ctx, workspaceId, slug).catch(() => undefined);
    if (skill) installed.push(skill);
  }
  return [...shared, ...installed];
}

import { byokStatus } from '../billing/byok.js';
import type { AppContext } from '../context.js';
import { InvalidInput, NotFound } from '../errors.js';
import type { Skill } from '../ports/skills.js';
import { modelUseOf } from '../runtime/agent/model-use-estimate.js';
import { takesFiles } from '../runtime/input-files.js';
import { findSkill, workspaceSkills } from '../skills/workspace-skills.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

type CatalogContext = Pick<AppContext, 'db' | 'skills' | 'blobs' | 'config'>;

/** Where a skill comes from: the server's (every workspace has them), or installed into this workspace. */
export type SkillSource = 'server' | 'workspace';

/** Whether the caller's model calls ride on a key of their own, which costs them 0 Ds (billing rule 4). */
async function paysOwnModels(ctx: CatalogContext, userId: string): Promise<boolean> {
  return (await byokStatus(ctx, userId)).hasKey;
}

function skillItem(ctx: CatalogContext, skill: Skill, source: SkillSource, ownKey: boolean) {
  return {
    slug: skill.slug,
    name: skill.name,
    description: skill.description,
    runtime: skill.runtime,
    price: skill.price,
    installed: true,
    source,
    input: skill.inputHint ?? skill.description,
    defaultInput: skill.defaultInput,
    examples: skill.inputExamples,
    inputSchema: skill.inputSchema,
    takesFiles: takesFiles(skill),
    modelUse: modelUseOf(ctx.config.agent, skill, ownKey),
  };
}

/**
 * One page of the skills the caller's workspace can run, in slug order: the server's and
 * those installed into the workspace, each saying which it is.
 */
export async function marketplacePage(
  ctx: CatalogContext,
  workspaceId: string,
  userId: string,
  page: { limit?: number | undefined; offset?: number | undefined },
) {
  const limit = page.limit ?? DEFAULT_LIMIT;
  if (limit < 1 || limit > MAX_LIMIT) throw new InvalidInput(`limit must be from 1 to ${MAX_LIMIT}`);
  const offset = page.offset ?? 0;
  const ownKey = await paysOwnModels(ctx, userId);
  const all = [
    ...ctx.skills.list().map((skill) => skillItem(ctx, skill, 'server', ownKey)),
    ...(await workspaceSkills(ctx, workspaceId)).map((skill) => skillItem(ctx, skill, 'workspace', ownKey)),
  ].sort((a, b) => a.slug.localeCompare(b.slug));
  const items = all.slice(offset, offset + limit);
  return { items, total: all.length, limit, offset, hasMore: offset + items.length < all.length };
}

/** One skill the caller's workspace can run; another workspace's is as unknown as a slug nobody used. */
export async function catalogSkill(ctx: CatalogContext, workspaceId: string, userId: string, slug: string) {
  const skill = await findSkill(ctx, workspaceId, slug);
  if (!skill) throw new NotFound(`There is no skill called ${slug} here. See the list of skills for the slugs you can run.`);
  return skillItem(ctx, skill, ctx.skills.get(slug) ? 'server' : 'workspace', await paysOwnModels(ctx, userId));
}

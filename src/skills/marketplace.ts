import { InvalidInput } from '../errors.js';
import { takesFiles } from './input-files.js';
import type { SkillRegistry } from './registry.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/**
 * One page of the skills this server offers, in slug order. Every workspace has all of
 * them installed.
 */
export function marketplacePage(skills: SkillRegistry, page: { limit?: number | undefined; offset?: number | undefined }) {
  const limit = page.limit ?? DEFAULT_LIMIT;
  if (limit < 1 || limit > MAX_LIMIT) throw new InvalidInput(`limit must be from 1 to ${MAX_LIMIT}`);
  const offset = page.offset ?? 0;
  const all = skills.list();
  const items = all.slice(offset, offset + limit).map((skill) => ({
    slug: skill.slug,
    name: skill.name,
    description: skill.description,
    runtime: skill.runtime,
    price: skill.price,
    installed: true,
    input: skill.inputHint ?? skill.description,
    defaultInput: skill.defaultInput,
    examples: skill.inputExamples,
    inputSchema: skill.inputSchema,
    takesFiles: takesFiles(skill),
  }));
  return { items, total: all.length, limit, offset, hasMore: offset + items.length < all.length };
}

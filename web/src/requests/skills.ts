import type { Page, SkillItem } from '../../../src/sdk/types';
import { get } from '../api';

export type SkillPage = Page<SkillItem>;

/** The server's largest page: one request covers any ordinary install. */
const PAGE = 100;

export function skillPage(offset: number, limit = PAGE): Promise<SkillPage> {
  return get<SkillPage>(`/api/v1/marketplace/skills?limit=${limit}&offset=${offset}`);
}

/** The marketplace has no per-skill route, so one skill is found by walking its pages. */
export async function findSkill(slug: string): Promise<SkillItem | null> {
  for (let offset = 0; ; offset += PAGE) {
    const page = await skillPage(offset);
    const found = page.items.find((skill) => skill.slug === slug);
    if (found) return found;
    if (!page.hasMore) return null;
  }
}

import { SkilletError } from '../../../src/sdk/errors';
import type { Page, SkillItem } from '../../../src/sdk/types';
import { del, get } from '../api';

export type SkillPage = Page<SkillItem>;

/** The server's largest page: one request covers any ordinary install. */
const PAGE = 100;

export function skillPage(offset: number, limit = PAGE): Promise<SkillPage> {
  return get<SkillPage>(`/api/v1/marketplace/skills?limit=${limit}&offset=${offset}`);
}

/** One skill the workspace can run, the server's or its own; null for a slug it does not have. */
export async function findSkill(slug: string): Promise<SkillItem | null> {
  try {
    return await get<SkillItem>(`/api/v1/skills/${encodeURIComponent(slug)}`);
  } catch (thrown) {
    if (thrown instanceof SkilletError && thrown.status === 404) return null;
    throw thrown;
  }
}

/** Removes a skill installed into the workspace; its past runs stay in the history. */
export function removeSkill(slug: string): Promise<{ success: true }> {
  return del<{ success: true }>(`/api/v1/skills/${encodeURIComponent(slug)}`);
}

import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';

/** The slugs of the skills installed into one workspace, in slug order, at most `limit`. */
export async function installedSlugs(db: Kysely<Tables>, workspaceId: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('workspace_skills')
    .select('slug')
    .where('workspace_id', '=', workspaceId)
    .orderBy('slug')
    .limit(limit)
    .execute();
  return rows.map((row) => row.slug);
}

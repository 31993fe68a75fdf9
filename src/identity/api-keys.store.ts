import type { Kysely, Selectable } from 'kysely';
import { preparedLookup } from '../db/prepared-lookup.js';
import type { Tables } from '../db/tables.js';
import type { ApiKeysTable } from '../db/tables-identity.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

export async function countLiveKeys(db: Kysely<Tables>, userId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertApiKey(db: Kysely<Tables>, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export function listLiveKeys(db: Kysely<Tables>, userId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

/** Revokes one of the user's live keys; false when there is none by that id. */
export async function revokeKey(db: Kysely<Tables>, userId: string, keyId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** On every request that presents a key: prepared, with the user and workspace it acts as. */
export const liveKeyByHash = preparedLookup((db, keyHash: string) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .innerJoin('workspace_members as m', (join) =>
      join.onRef('m.workspace_id', '=', 'k.workspace_id').onRef('m.user_id', '=', 'k.user_id'),
    )
    .innerJoin('workspaces as w', 'w.id', 'k.workspace_id')
    .select(['k.id', 'k.user_id', 'k.workspace_id', 'k.last_used_at', 'k.scopes', 'm.role', 'w.name', 'w.is_personal'])
    .select(['u.email', 'u.is_admin', 'u.created_at', 'u.personal_workspace_id'])
    .select(['u.subscription_expires_at', 'u.site_license_until', 'u.byok_provider'])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null),
);

export async function touchKey(db: Kysely<Tables>, keyId: string, nowIso: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: nowIso }).where('id', '=', keyId).execute();
}

/** Whether a key is unrevoked and bound to this workspace. */
export async function isKeyLiveIn(db: Kysely<Tables>, keyId: string, workspaceId: string): Promise<boolean> {
  const key = await db
    .selectFrom('api_keys')
    .select('id')
    .where('id', '=', keyId)
    .where('workspace_id', '=', workspaceId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return key !== undefined;
}

/** Revokes a key by its id alone, if it is still live (within the caller's transaction). */
export async function revokeKeyById(db: Kysely<Tables>, keyId: string, nowIso: string): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: nowIso }).where('id', '=', keyId).where('revoked_at', 'is', null).execute();
}

import type { Kysely, Selectable } from 'kysely';
import { preparedLookup } from '../db/prepared-lookup.js';
import type { Tables } from '../db/tables.js';
import type { AuthTokensTable } from '../db/tables-identity.js';

type AuthTokenRow = Selectable<AuthTokensTable>;

export async function insertAuthToken(db: Kysely<Tables>, row: AuthTokenRow): Promise<void> {
  await db.insertInto('auth_tokens').values(row).execute();
}

export async function revokeToken(db: Kysely<Tables>, tokenId: string, nowIso: string): Promise<void> {
  await db
    .updateTable('auth_tokens')
    .set({ revoked_at: nowIso })
    .where('id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function setTokenWorkspace(db: Kysely<Tables>, tokenId: string, workspaceId: string): Promise<void> {
  await db.updateTable('auth_tokens').set({ active_workspace_id: workspaceId }).where('id', '=', tokenId).execute();
}

/**
 * On every request that presents a token: prepared. The membership is a left join, since
 * the token may point at a workspace its person has since been removed from.
 */
export const liveTokenByHash = preparedLookup((db, tokenHash: string, nowIso: string) =>
  db
    .selectFrom('auth_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .leftJoin('workspace_members as m', (join) =>
      join.onRef('m.workspace_id', '=', 't.active_workspace_id').onRef('m.user_id', '=', 't.user_id'),
    )
    .leftJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(['t.id', 't.user_id', 't.active_workspace_id', 't.expires_at', 'm.role', 'w.name', 'w.is_personal'])
    .select(['u.email', 'u.is_admin', 'u.created_at', 'u.personal_workspace_id'])
    .select(['u.subscription_expires_at', 'u.site_license_until', 'u.byok_provider'])
    .where('t.token_hash', '=', tokenHash)
    .where('t.revoked_at', 'is', null)
    .where('t.expires_at', '>', nowIso),
);

/** Whether a token is unrevoked, unexpired and its person a member of this workspace. */
export async function isTokenLiveIn(db: Kysely<Tables>, tokenId: string, workspaceId: string, nowIso: string): Promise<boolean> {
  const token = await db
    .selectFrom('auth_tokens as t')
    .innerJoin('workspace_members as m', 'm.user_id', 't.user_id')
    .select('t.id')
    .where('t.id', '=', tokenId)
    .where('m.workspace_id', '=', workspaceId)
    .where('t.revoked_at', 'is', null)
    .where('t.expires_at', '>', nowIso)
    .executeTakeFirst();
  return token !== undefined;
}

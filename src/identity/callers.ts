import type { AppContext } from '../context.js';
import type { WorkspaceRole } from '../db/tables.js';
import { Forbidden, InvalidInput } from '../errors.js';
import { sha256Hex } from '../secrets.js';
import { API_KEY_LENGTH, API_KEY_PREFIX } from './api-keys.js';

/** Who is calling, through which credential, and in which workspace. */
export interface Caller {
  kind: 'session' | 'api_key';
  credentialId: string;
  userId: string;
  isAdmin: boolean;
  personalWorkspaceId: string;
  workspaceId: string;
  role: WorkspaceRole;
}

/** A key is only touched once a minute: enough for the heartbeat, cheap on the hot path. */
const LAST_USED_GRANULARITY_MS = 60_000;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function callerFromApiKey(ctx: AppContext, key: string): Promise<Caller | null> {
  if (key.length !== API_KEY_LENGTH || !key.startsWith(API_KEY_PREFIX)) return null;
  const row = await ctx.db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .innerJoin('workspace_members as m', (join) =>
      join.onRef('m.workspace_id', '=', 'k.workspace_id').onRef('m.user_id', '=', 'k.user_id'),
    )
    .select(['k.id', 'k.user_id', 'k.workspace_id', 'k.last_used_at', 'u.is_admin', 'u.personal_workspace_id', 'm.role'])
    .where('k.key_hash', '=', sha256Hex(key))
    .where('k.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;

  const now = ctx.clock.now();
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_GRANULARITY_MS) {
    await ctx.db.updateTable('api_keys').set({ last_used_at: now.toISOString() }).where('id', '=', row.id).execute();
  }
  return {
    kind: 'api_key',
    credentialId: row.id,
    userId: row.user_id,
    isAdmin: row.is_admin === 1,
    personalWorkspaceId: row.personal_workspace_id,
    workspaceId: row.workspace_id,
    role: row.role,
  };
}

export async function callerFromAuthToken(ctx: AppContext, token: string): Promise<Caller | null> {
  if (token.length > 200) return null;
  const row = await ctx.db
    .selectFrom('auth_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .leftJoin('workspace_members as m', (join) =>
      join.onRef('m.workspace_id', '=', 't.active_workspace_id').onRef('m.user_id', '=', 't.user_id'),
    )
    .select(['t.id', 't.user_id', 't.active_workspace_id', 'u.is_admin', 'u.personal_workspace_id', 'm.role'])
    .where('t.token_hash', '=', sha256Hex(token))
    .where('t.revoked_at', 'is', null)
    .where('t.expires_at', '>', ctx.clock.now().toISOString())
    .executeTakeFirst();
  if (!row) return null;
  // Removed from the workspace it had switched to: back to the personal one.
  const inActive = row.role !== null;
  return {
    kind: 'session',
    credentialId: row.id,
    userId: row.user_id,
    isAdmin: row.is_admin === 1,
    personalWorkspaceId: row.personal_workspace_id,
    workspaceId: inActive ? row.active_workspace_id : row.personal_workspace_id,
    role: row.role ?? 'owner',
  };
}

export async function membershipRole(ctx: AppContext, userId: string, workspaceId: string): Promise<WorkspaceRole | null> {
  const row = await ctx.db
    .selectFrom('workspace_members')
    .select('role')
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.role ?? null;
}

/** Applies an `x-workspace-id` header: a session may act in any workspace it belongs to. */
export async function inWorkspace(ctx: AppContext, caller: Caller, workspaceId: string): Promise<Caller> {
  if (!UUID_SHAPE.test(workspaceId)) throw new InvalidInput('x-workspace-id must be a workspace id (UUID)');
  const id = workspaceId.toLowerCase();
  if (id === caller.workspaceId) return caller;
  if (caller.kind === 'api_key') throw new Forbidden('This API key is bound to another workspace');
  const role = await membershipRole(ctx, caller.userId, id);
  if (!role) throw new Forbidden('You are not a member of this workspace');
  return { ...caller, workspaceId: id, role };
}

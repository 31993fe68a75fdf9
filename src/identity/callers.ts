import { standingOfRow } from '../billing/subscription-mode.js';
import type { BillingStanding } from '../billing/subscription-mode.js';
import type { AppContext } from '../context.js';
import { preparedLookup } from '../db/prepared-lookup.js';
import type { WorkspaceRole } from '../db/tables.js';
import { Forbidden, InvalidInput } from '../errors.js';
import { sha256Hex } from '../secrets.js';
import { API_KEY_LENGTH, API_KEY_PREFIX } from './api-keys.js';
import { findMembership } from './workspaces.store.js';

/** Who is calling, through which credential, and in which workspace. */
export interface Caller {
  kind: 'session' | 'api_key';
  credentialId: string;
  userId: string;
  email: string;
  isAdmin: boolean;
  userCreatedAt: string;
  personalWorkspaceId: string;
  workspaceId: string;
  workspaceName: string | null;
  workspacePersonal: boolean;
  role: WorkspaceRole;
  /** What the user's subscription mode is computed from, as of when the credential was read. */
  billing: BillingStanding;
}

/** A key is only touched once a minute: enough for the heartbeat, cheap on the hot path. */
const LAST_USED_GRANULARITY_MS = 60_000;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const liveKeyByHash = preparedLookup((db, keyHash: string) =>
  db
    .selectFrom('api_keys as k')
    .innerJoin('users as u', 'u.id', 'k.user_id')
    .innerJoin('workspace_members as m', (join) =>
      join.onRef('m.workspace_id', '=', 'k.workspace_id').onRef('m.user_id', '=', 'k.user_id'),
    )
    .innerJoin('workspaces as w', 'w.id', 'k.workspace_id')
    .select(['k.id', 'k.user_id', 'k.workspace_id', 'k.last_used_at', 'm.role', 'w.name', 'w.is_personal'])
    .select(['u.email', 'u.is_admin', 'u.created_at', 'u.personal_workspace_id'])
    .select(['u.subscription_expires_at', 'u.site_license_until', 'u.byok_provider'])
    .where('k.key_hash', '=', keyHash)
    .where('k.revoked_at', 'is', null),
);

const liveTokenByHash = preparedLookup((db, tokenHash: string, nowIso: string) =>
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

interface UserColumns {
  user_id: string;
  email: string;
  is_admin: number;
  created_at: string;
  personal_workspace_id: string;
  subscription_expires_at: string | null;
  site_license_until: string | null;
  byok_provider: string | null;
}

function callerOf(
  kind: Caller['kind'],
  credentialId: string,
  user: UserColumns,
  workspace: { id: string; name: string | null; personal: boolean; role: WorkspaceRole },
): Caller {
  return {
    kind,
    credentialId,
    userId: user.user_id,
    email: user.email,
    isAdmin: user.is_admin === 1,
    userCreatedAt: user.created_at,
    personalWorkspaceId: user.personal_workspace_id,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    workspacePersonal: workspace.personal,
    role: workspace.role,
    billing: standingOfRow(user),
  };
}

async function touchKey(ctx: AppContext, keyId: string, now: Date): Promise<void> {
  await ctx.db.updateTable('api_keys').set({ last_used_at: now.toISOString() }).where('id', '=', keyId).execute();
}

export async function callerFromApiKey(ctx: AppContext, key: string): Promise<Caller | null> {
  if (key.length !== API_KEY_LENGTH || !key.startsWith(API_KEY_PREFIX)) return null;
  const hash = sha256Hex(key);
  const now = ctx.clock.now();
  const cached = ctx.credentials.get(hash, now.getTime());
  if (cached) return cached;

  const row = await liveKeyByHash(ctx.db, hash);
  if (!row) return null;
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_GRANULARITY_MS) {
    await touchKey(ctx, row.id, now);
  }
  const caller = callerOf('api_key', row.id, row, {
    id: row.workspace_id,
    name: row.name,
    personal: row.is_personal === 1,
    role: row.role,
  });
  // Cached no longer than the last-used granularity, so a busy key keeps its heartbeat.
  ctx.credentials.set(hash, caller, now.getTime(), now.getTime() + LAST_USED_GRANULARITY_MS);
  return caller;
}

export async function callerFromAuthToken(ctx: AppContext, token: string): Promise<Caller | null> {
  if (token.length > 200) return null;
  const hash = sha256Hex(token);
  const now = ctx.clock.now();
  const cached = ctx.credentials.get(hash, now.getTime());
  if (cached) return cached;

  const row = await liveTokenByHash(ctx.db, hash, now.toISOString());
  if (!row) return null;
  // Removed from the workspace it had switched to: back to the personal one.
  const workspace =
    row.role === null
      ? { id: row.personal_workspace_id, name: null, personal: true, role: 'owner' as const }
      : { id: row.active_workspace_id, name: row.name, personal: row.is_personal === 1, role: row.role };
  const caller = callerOf('session', row.id, row, workspace);
  ctx.credentials.set(hash, caller, now.getTime(), Date.parse(row.expires_at));
  return caller;
}

/** A credential as a signed URL refers to it, without its secret. */
export interface CredentialRef {
  kind: Caller['kind'];
  credentialId: string;
  workspaceId: string;
}

/** Whether a credential still stands, and still reaches the workspace it was bound to. */
export async function isCredentialLive(ctx: AppContext, ref: CredentialRef): Promise<boolean> {
  if (ref.kind === 'api_key') {
    const key = await ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('id', '=', ref.credentialId)
      .where('workspace_id', '=', ref.workspaceId)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return key !== undefined;
  }
  const token = await ctx.db
    .selectFrom('auth_tokens as t')
    .innerJoin('workspace_members as m', 'm.user_id', 't.user_id')
    .select('t.id')
    .where('t.id', '=', ref.credentialId)
    .where('m.workspace_id', '=', ref.workspaceId)
    .where('t.revoked_at', 'is', null)
    .where('t.expires_at', '>', ctx.clock.now().toISOString())
    .executeTakeFirst();
  return token !== undefined;
}

/** Applies an `x-workspace-id` header: a session may act in any workspace it belongs to. */
export async function inWorkspace(ctx: AppContext, caller: Caller, workspaceId: string): Promise<Caller> {
  if (!UUID_SHAPE.test(workspaceId)) throw new InvalidInput('x-workspace-id must be a workspace id (UUID)');
  const id = workspaceId.toLowerCase();
  if (id === caller.workspaceId) return caller;
  if (caller.kind === 'api_key') throw new Forbidden('This API key is bound to another workspace');
  const membership = await findMembership(ctx.db, caller.userId, id);
  if (!membership) throw new Forbidden('You are not a member of this workspace');
  return {
    ...caller,
    workspaceId: id,
    workspaceName: membership.name,
    workspacePersonal: membership.is_personal === 1,
    role: membership.role,
  };
}

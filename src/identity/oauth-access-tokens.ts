import type { AdapterPayload } from 'oidc-provider';
import type { AppContext } from '../context.js';
import type { Caller } from '../ports/callers.js';
import { type CredentialRef, callerOfRows } from './callers.js';
import { findGrantWorkspace, findLiveRecord, hasLiveGrantToken } from './oauth-records.store.js';
import { type OAuthResource, resourceUrl } from './oauth-resources.js';
import { findUser } from './users.js';
import { findMembership } from './workspaces.store.js';

type Reader = Pick<AppContext, 'db' | 'clock' | 'config'>;

/** The person and workspace a grant acts for, while the grant stands and the membership holds. */
async function callerOfGrant(ctx: Reader, grantId: string, scopes: readonly string[]): Promise<Caller | null> {
  const binding = await findGrantWorkspace(ctx.db, grantId);
  if (!binding) return null;
  const user = await findUser(ctx, binding.user_id);
  const membership = user && (await findMembership(ctx.db, user.id, binding.workspace_id));
  if (!user || !membership) return null;
  const caller = callerOfRows(
    'oauth',
    grantId,
    { ...user, user_id: user.id },
    { id: membership.id, name: membership.name, personal: membership.is_personal === 1, role: membership.role },
  );
  return { ...caller, scopes };
}

/**
 * The caller an OAuth access token stands for on `resource`: read from what oidc-provider
 * stored for it (opaque tokens are their own id), so a revoked token (destroyed) or an
 * expired one (past its time by our clock) names nobody, and a token for another audience
 * (RFC 8707) is refused like any invalid token.
 */
export async function callerFromAccessToken(ctx: Reader, token: string, resource: OAuthResource): Promise<Caller | null> {
  const row = await findLiveRecord(ctx.db, 'AccessToken', token, ctx.clock.now().toISOString());
  if (!row) return null;
  const payload: AdapterPayload = JSON.parse(row.payload);
  if (payload.aud !== resourceUrl(ctx.config.publicUrl, resource) || !payload.grantId || !payload.accountId) return null;
  const caller = await callerOfGrant(ctx, payload.grantId, (payload.scope ?? '').split(' ').filter(Boolean));
  return caller && caller.userId === payload.accountId ? caller : null;
}

/**
 * What a signed URL made with an OAuth caller (its credential id is the grant) lives on:
 * the grant still has a token that is neither expired nor revoked (a refresh token keeps
 * it alive past its access token's hour), and the person is still in its workspace.
 */
export async function isGrantLive(ctx: Pick<AppContext, 'db' | 'clock'>, ref: CredentialRef): Promise<boolean> {
  const binding = await findGrantWorkspace(ctx.db, ref.credentialId);
  if (!binding || binding.workspace_id !== ref.workspaceId) return false;
  if (!(await hasLiveGrantToken(ctx.db, ref.credentialId, ctx.clock.now().toISOString()))) return false;
  return (await findMembership(ctx.db, binding.user_id, binding.workspace_id)) !== undefined;
}

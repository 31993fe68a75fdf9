import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { Caller } from '../ports/callers.js';
import { announceRevocation } from '../realtime/control-messages.js';
import { randomString, sha256Hex } from '../secrets.js';
import { insertAuthToken, isTokenLiveIn, liveTokenByHash, revokeToken, setTokenWorkspace } from './auth-tokens.store.js';
import { type CredentialRef, callerOfRows } from './callers.js';
import type { UserRow } from './users.store.js';

const TOKEN_PREFIX = 'sklt_sess_';
const DAY_MS = 86_400_000;

/** Issues an opaque session token; only its hash is stored. It starts in the personal workspace. */
export async function issueAuthToken(ctx: Pick<AppContext, 'db' | 'clock' | 'config'>, user: UserRow): Promise<string> {
  const token = TOKEN_PREFIX + randomString(40);
  const now = ctx.clock.now();
  await insertAuthToken(ctx.db, {
    id: randomUUID(),
    user_id: user.id,
    token_hash: sha256Hex(token),
    active_workspace_id: user.personal_workspace_id,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ctx.config.authTokenTtlDays * DAY_MS).toISOString(),
    revoked_at: null,
  });
  return token;
}

/**
 * Forgotten by the cache only once the revocation is written, so nothing re-caches it;
 * then announced, so the control-plane sockets opened with it close.
 */
export async function revokeAuthToken(
  ctx: Pick<AppContext, 'db' | 'clock' | 'credentials' | 'control'>,
  tokenId: string,
): Promise<void> {
  await revokeToken(ctx.db, tokenId, ctx.clock.now().toISOString());
  ctx.credentials.forget(tokenId);
  announceRevocation(ctx, tokenId);
}

export async function setActiveWorkspace(
  ctx: Pick<AppContext, 'db' | 'credentials'>,
  tokenId: string,
  workspaceId: string,
): Promise<void> {
  await setTokenWorkspace(ctx.db, tokenId, workspaceId);
  ctx.credentials.forget(tokenId);
}

/** What reading a credential needs: the database, the time, and the cache of ones already read. */
type CredentialReader = Pick<AppContext, 'db' | 'clock' | 'credentials'>;

/** The session strategy's reading of `x-auth-token`; null when it names no live token. */
export function callerFromAuthToken(ctx: CredentialReader, token: string): Caller | null | Promise<Caller | null> {
  if (token.length > 200) return null;
  const hash = sha256Hex(token);
  return ctx.credentials.get(hash, ctx.clock.nowMs()) ?? loadSessionCaller(ctx, hash);
}

async function loadSessionCaller(ctx: CredentialReader, hash: string): Promise<Caller | null> {
  const now = ctx.clock.now();
  const row = await liveTokenByHash(ctx.db, hash, now.toISOString());
  if (!row) return null;
  // Removed from the workspace it had switched to: back to the personal one.
  const workspace =
    row.role === null
      ? { id: row.personal_workspace_id, name: null, personal: true, role: 'owner' as const }
      : { id: row.active_workspace_id, name: row.name, personal: row.is_personal === 1, role: row.role };
  const caller = callerOfRows('session', row.id, row, workspace);
  ctx.credentials.set(hash, caller, now.getTime(), Date.parse(row.expires_at));
  return caller;
}

/** Whether a session still stands, and its person still belongs to the workspace it was bound to. */
export function isAuthTokenLive(ctx: Pick<AppContext, 'db' | 'clock'>, ref: CredentialRef): Promise<boolean> {
  return isTokenLiveIn(ctx.db, ref.credentialId, ref.workspaceId, ctx.clock.now().toISOString());
}

import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import { announceRevocation } from '../executions/control-messages.js';
import { randomString, sha256Hex } from '../secrets.js';
import type { UserRow } from './users.store.js';

const TOKEN_PREFIX = 'sklt_sess_';
const DAY_MS = 86_400_000;

/** Issues an opaque session token; only its hash is stored. It starts in the personal workspace. */
export async function issueAuthToken(ctx: AppContext, user: UserRow): Promise<string> {
  const token = TOKEN_PREFIX + randomString(40);
  const now = ctx.clock.now();
  await ctx.db
    .insertInto('auth_tokens')
    .values({
      id: randomUUID(),
      user_id: user.id,
      token_hash: sha256Hex(token),
      active_workspace_id: user.personal_workspace_id,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + ctx.config.authTokenTtlDays * DAY_MS).toISOString(),
      revoked_at: null,
    })
    .execute();
  return token;
}

/**
 * Forgotten by the cache only once the revocation is written, so nothing re-caches it;
 * then announced, so the control-plane sockets opened with it close.
 */
export async function revokeAuthToken(ctx: AppContext, tokenId: string): Promise<void> {
  await ctx.db
    .updateTable('auth_tokens')
    .set({ revoked_at: ctx.clock.now().toISOString() })
    .where('id', '=', tokenId)
    .where('revoked_at', 'is', null)
    .execute();
  ctx.credentials.forget(tokenId);
  announceRevocation(ctx, tokenId);
}

export async function setActiveWorkspace(ctx: AppContext, tokenId: string, workspaceId: string): Promise<void> {
  await ctx.db.updateTable('auth_tokens').set({ active_workspace_id: workspaceId }).where('id', '=', tokenId).execute();
  ctx.credentials.forget(tokenId);
}

import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import { lockRow } from '../db/locks.js';
import type { Tables } from '../db/tables.js';
import { Forbidden, NotFound } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { announceRevocation, invalidate } from '../realtime/control-messages.js';
import { randomString, sha256Hex } from '../secrets.js';
import {
  type ApiKeyRow,
  countLiveKeys,
  insertApiKey,
  isKeyLiveIn,
  listLiveKeys,
  liveKeyByHash,
  revokeKey,
  revokeKeyById,
  touchKey,
} from './api-keys.store.js';
import { type CredentialRef, callerOfRows } from './callers.js';
import { API_KEY_LIMITS, MODE_INFO, subscriptionModeOf } from './subscription-mode.js';
import { standingOf } from './users.store.js';

const API_KEY_PREFIX = 'sklt_live_';
const API_KEY_LENGTH = API_KEY_PREFIX.length + 40;

/** Whether a bearer token is one of our API keys by its look (live or not is for resolve to say). */
export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

export type Heartbeat = 'ACTIVE' | 'IDLE' | 'DORMANT';

export interface ApiKeyView {
  id: string;
  label: string;
  keyPreview: string;
  workspaceId: string;
  createdAt: string;
  lastUsedAt: string | null;
  heartbeat: Heartbeat;
}

export interface MintedKey {
  row: ApiKeyRow;
  plaintext: string;
}

export function keyPreview(key: string): string {
  return `${key.slice(0, 14)}...${key.slice(-4)}`;
}

export function heartbeatOf(lastUsedAt: string | null, now: Date, thresholds: AppContext['config']['heartbeat']): Heartbeat {
  if (!lastUsedAt) return 'DORMANT';
  const idleForSeconds = (now.getTime() - Date.parse(lastUsedAt)) / 1000;
  if (idleForSeconds <= thresholds.activeSeconds) return 'ACTIVE';
  if (idleForSeconds <= thresholds.idleSeconds) return 'IDLE';
  return 'DORMANT';
}

function keyView(ctx: Pick<AppContext, 'clock' | 'config'>, row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    label: row.label,
    keyPreview: row.key_preview,
    workspaceId: row.workspace_id,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    heartbeat: heartbeatOf(row.last_used_at, ctx.clock.now(), ctx.config.heartbeat),
  };
}

/**
 * Mints a key for a user in a workspace, within the caller's transaction `trx`, after
 * checking the mode's key-count limit under a per-user lock.
 */
export async function mintApiKey(
  ctx: Pick<AppContext, 'clock'>,
  trx: Kysely<Tables>,
  owner: { userId: string; workspaceId: string; label: string },
): Promise<MintedKey> {
  // Serialises key creation per user, so the count below cannot race.
  await lockRow(trx, 'users', owner.userId);
  const mode = subscriptionModeOf(await standingOf(trx, owner.userId), ctx.clock.nowMs());
  const limit = API_KEY_LIMITS[mode];
  if (limit !== null && (await countLiveKeys(trx, owner.userId)) >= limit) {
    const plan = MODE_INFO[mode].name;
    throw new Forbidden(
      `You already have the ${limit} key${limit === 1 ? '' : 's'} ${plan} allows. Revoke one you no longer use, ` +
        'or subscribe to Based for as many as you need.',
    );
  }
  const plaintext = API_KEY_PREFIX + randomString(40);
  const row: ApiKeyRow = {
    id: randomUUID(),
    user_id: owner.userId,
    workspace_id: owner.workspaceId,
    label: owner.label,
    key_hash: sha256Hex(plaintext),
    key_preview: keyPreview(plaintext),
    created_at: ctx.clock.now().toISOString(),
    last_used_at: null,
    revoked_at: null,
    scopes: null,
  };
  await insertApiKey(trx, row);
  return { row, plaintext };
}

/** Keys are created by a person in a session, bound to the workspace they act in. */
export async function createApiKey(
  ctx: Pick<AppContext, 'db' | 'clock' | 'control'>,
  caller: Caller,
  label: string,
): Promise<MintedKey> {
  const minted = await ctx.db
    .transaction()
    .execute((trx) => mintApiKey(ctx, trx, { userId: caller.userId, workspaceId: caller.workspaceId, label }));
  invalidate(ctx, caller.workspaceId, ['keys']);
  return minted;
}

export async function listApiKeys(ctx: Pick<AppContext, 'db' | 'clock' | 'config'>, caller: Caller): Promise<ApiKeyView[]> {
  const rows = await listLiveKeys(ctx.db, caller.userId);
  return rows.map((row) => keyView(ctx, row));
}

/**
 * A signed-in person revokes any key of theirs; a key may revoke only itself (a CLI logging
 * out gives its key back without asking for the password).
 */
export async function revokeApiKey(
  ctx: Pick<AppContext, 'db' | 'clock' | 'credentials' | 'control'>,
  caller: Caller,
  keyId: string,
): Promise<void> {
  // A session is the one credential kind that is a person signed in (credential-strategies.ts).
  if (caller.kind !== 'session' && !(caller.kind === 'api_key' && caller.credentialId === keyId)) {
    throw new Forbidden('Only a signed-in person (x-auth-token), or the key itself, can revoke a key');
  }
  const revoked = await revokeKey(ctx.db, caller.userId, keyId, ctx.clock.now().toISOString());
  if (!revoked) throw new NotFound('API key not found');
  ctx.credentials.forget(keyId);
  announceRevocation(ctx, keyId);
  invalidate(ctx, caller.workspaceId, ['keys']);
}

/**
 * Revokes a key that was minted but never handed over (an activation that expired before
 * its claim), within the caller's transaction. Nobody holds it, so nothing is announced.
 */
export async function revokeUnclaimedKey(
  ctx: Pick<AppContext, 'clock' | 'credentials'>,
  trx: Kysely<Tables>,
  keyId: string,
): Promise<void> {
  await revokeKeyById(trx, keyId, ctx.clock.now().toISOString());
  ctx.credentials.forget(keyId);
}

/** A key is only touched once a minute: enough for the heartbeat, cheap on the hot path. */
const LAST_USED_GRANULARITY_MS = 60_000;

/**
 * The API-key strategy's reading of `x-api-key`; null when it names no live key. A key
 * read in the last minute is answered at once from the cache, without a promise.
 */
export function callerFromApiKey(
  ctx: Pick<AppContext, 'db' | 'clock' | 'credentials'>,
  key: string,
): Caller | null | Promise<Caller | null> {
  if (key.length !== API_KEY_LENGTH || !key.startsWith(API_KEY_PREFIX)) return null;
  const hash = sha256Hex(key);
  return ctx.credentials.get(hash, ctx.clock.nowMs()) ?? loadKeyCaller(ctx, hash);
}

async function loadKeyCaller(ctx: Pick<AppContext, 'db' | 'clock' | 'credentials'>, hash: string): Promise<Caller | null> {
  const now = ctx.clock.now();
  const row = await liveKeyByHash(ctx.db, hash);
  if (!row) return null;
  if (!row.last_used_at || now.getTime() - Date.parse(row.last_used_at) >= LAST_USED_GRANULARITY_MS) {
    await touchKey(ctx.db, row.id, now.toISOString());
  }
  const caller = callerOfRows('api_key', row.id, row, {
    id: row.workspace_id,
    name: row.name,
    personal: row.is_personal === 1,
    role: row.role,
  });
  // A key narrowed by scoped consent carries its scopes, enforced whatever OAUTH_ENFORCE_SCOPES says.
  if (row.scopes !== null) Object.assign(caller, { scopes: row.scopes.split(' '), scopesEnforced: true });
  // Cached no longer than the last-used granularity, so a busy key keeps its heartbeat.
  ctx.credentials.set(hash, caller, now.getTime(), now.getTime() + LAST_USED_GRANULARITY_MS);
  return caller;
}

/** Whether a key is still unrevoked and bound to the workspace it was read in. */
export function isApiKeyLive(ctx: Pick<AppContext, 'db'>, ref: CredentialRef): Promise<boolean> {
  return isKeyLiveIn(ctx.db, ref.credentialId, ref.workspaceId);
}

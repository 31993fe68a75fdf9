import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { AgentConnectStatus } from '../db/tables-identity.js';
import { Conflict, Expired, Forbidden, NotFound } from '../errors.js';
import { isOAuthScope, type OAuthScope, scopesCover } from '../identity/oauth-scopes.js';
import type { Caller } from '../ports/callers.js';
import {
  type AgentConnectRow,
  connectRequestById,
  decideConnectRequest,
  insertConnectRequest,
  setKeyScopes,
} from './agent-connect.store.js';

/** As long as a device code (SPEC Limits: 600 s): the person has the same few minutes to answer. */
const CONNECT_REQUEST_SECONDS = 600;

export type ConnectStatus = AgentConnectStatus | 'expired';

export interface ConnectRequestView {
  requestId: string;
  status: ConnectStatus;
  scopes: OAuthScope[];
  label: string | null;
  keyLabel: string;
  createdAt: string;
  expiresAt: string;
}

type Ctx = Pick<AppContext, 'db' | 'clock'>;

function statusOf(row: AgentConnectRow, now: Date): ConnectStatus {
  return row.status === 'pending' && Date.parse(row.expires_at) <= now.getTime() ? 'expired' : row.status;
}

function viewOf(row: AgentConnectRow & { key_label: string }, now: Date): ConnectRequestView {
  return {
    requestId: row.id,
    status: statusOf(row, now),
    // Written by createConnectRequest from validated scopes only.
    scopes: row.scopes.split(' ').filter((scope): scope is OAuthScope => scope !== ''),
    label: row.label,
    keyLabel: row.key_label,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

/** A key asks its owner to narrow it to `scopes`; it may only narrow, never widen what it has. */
export async function createConnectRequest(
  ctx: Ctx,
  caller: Caller,
  request: { scopes: readonly OAuthScope[]; label?: string },
): Promise<ConnectRequestView> {
  if (caller.kind !== 'api_key') throw new Forbidden('Scoped consent narrows an API key: call it with the key (x-api-key)');
  const current = caller.scopes;
  const wider = current ? request.scopes.find((scope) => !scopesCover(current, scope)) : undefined;
  if (wider) throw new Forbidden(`This API key does not have the ${wider} scope; scoped consent can only narrow it`);
  const now = ctx.clock.now();
  const row: AgentConnectRow = {
    id: randomUUID(),
    key_id: caller.credentialId,
    user_id: caller.userId,
    workspace_id: caller.workspaceId,
    scopes: [...new Set(request.scopes)].join(' '),
    label: request.label ?? null,
    status: 'pending',
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + CONNECT_REQUEST_SECONDS * 1000).toISOString(),
    decided_at: null,
  };
  await insertConnectRequest(ctx.db, row);
  const found = await connectRequestById(ctx.db, row.id);
  if (!found) throw new NotFound('Connect request not found');
  return viewOf(found, now);
}

/**
 * The request as the key that made it, or the person who owns that key, sees it. Anyone
 * else (another key, another person) is told it does not exist.
 */
async function visibleRequest(ctx: Ctx, caller: Caller, requestId: string) {
  const row = await connectRequestById(ctx.db, requestId);
  const mine =
    row !== undefined &&
    row.user_id === caller.userId &&
    (caller.kind === 'api_key' ? row.key_id === caller.credentialId : row.workspace_id === caller.workspaceId);
  if (!mine) throw new NotFound('Connect request not found');
  return row;
}

export async function getConnectRequest(ctx: Ctx, caller: Caller, requestId: string): Promise<ConnectRequestView> {
  return viewOf(await visibleRequest(ctx, caller, requestId), ctx.clock.now());
}

/**
 * The owner's answer. Approval narrows the key at once: its cached credential is dropped
 * so the next request reads the new scopes. A denial changes nothing about the key.
 */
export async function decideConnect(
  ctx: Pick<AppContext, 'db' | 'clock' | 'credentials'>,
  caller: Caller,
  requestId: string,
  decision: 'approve' | 'deny',
): Promise<ConnectRequestView> {
  const row = await visibleRequest(ctx, caller, requestId);
  const now = ctx.clock.now();
  const status = statusOf(row, now);
  if (status === 'expired') throw new Expired('This connect request has expired');
  if (status !== 'pending') throw new Conflict(`This connect request was already ${status}`);
  const applied = await ctx.db.transaction().execute(async (trx) => {
    const decided = await decideConnectRequest(trx, row.id, decision === 'approve' ? 'approved' : 'denied', now.toISOString());
    if (decided && decision === 'approve') await setKeyScopes(trx, row.key_id, narrowed(row));
    return decided;
  });
  if (!applied) throw new Conflict('This connect request was already decided');
  ctx.credentials.forget(row.key_id);
  return getConnectRequest(ctx, caller, requestId);
}

/** What the key keeps: the requested scopes, but never more than an earlier approval left it. */
function narrowed(row: AgentConnectRow & { key_scopes: string | null }): string {
  const requested = row.scopes.split(' ');
  if (row.key_scopes === null) return requested.join(' ');
  const current = row.key_scopes.split(' ');
  return requested.filter((scope) => isOAuthScope(scope) && scopesCover(current, scope)).join(' ');
}

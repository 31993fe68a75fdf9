import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import { lockRow } from '../db/locks.js';
import { Forbidden, InvalidInput, NotFound } from '../errors.js';
import { requireOwnerOrAdmin } from '../identity/callers.js';
import type { Caller } from '../ports/callers.js';
import { AddressRefused, publicAddressesOf } from '../sandbox/egress/address-guard.js';
import { encrypt } from '../secrets.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './outbox.js';
import { newWebhookSecret } from './signing.js';
import { type EndpointView, endpointView } from './views.js';
import {
  countEndpoints,
  deleteEndpoint,
  type EndpointRow,
  endpointIn,
  insertEndpoint,
  listEndpoints,
  updateEndpoint,
} from './webhooks.store.js';

type EndpointDeps = Pick<AppContext, 'db' | 'clock' | 'config' | 'keys'>;

/** How long a rotated-out secret keeps signing beside the new one: a day for receivers to switch. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** Enough for a service per event kind and a few spares; more is almost always a leak. */
export const ENDPOINTS_PER_WORKSPACE = 20;

export interface EndpointInput {
  url: string;
  events?: WebhookEventType[];
  description?: string;
}

/** Webhooks send a workspace's activity elsewhere: only its owners and admins decide where. */
export function assertCanManageWebhooks(caller: Caller): void {
  requireOwnerOrAdmin(caller, 'Managing webhooks needs the owner or admin role');
}

/** An endpoint of the caller's workspace, or 404 (another workspace's included). */
export async function endpointOf(ctx: Pick<AppContext, 'db'>, caller: Caller, id: string): Promise<EndpointRow> {
  assertCanManageWebhooks(caller);
  const endpoint = await endpointIn(ctx.db, caller.workspaceId, id);
  if (!endpoint) throw new NotFound('Webhook endpoint not found');
  return endpoint;
}

/** Parses a receiver's URL and, unless the operator allows private ones, checks where it leads. */
async function checkedUrl(ctx: Pick<AppContext, 'config'>, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidInput('url must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidInput('url must be an absolute http or https URL');
  if (url.username || url.password) throw new InvalidInput('url must not carry a user name or password');
  if (!ctx.config.webhooks.allowPrivateAddresses) {
    try {
      await publicAddressesOf(url.hostname);
    } catch (error) {
      if (error instanceof AddressRefused) throw new InvalidInput(`url must lead to a public address: ${error.message}`);
      throw new InvalidInput(`url's host ${url.hostname} could not be resolved`);
    }
  }
  return url.toString();
}

function checkedEvents(events: WebhookEventType[] | undefined): WebhookEventType[] {
  if (events === undefined) return [...WEBHOOK_EVENT_TYPES];
  const unique = [...new Set(events)];
  if (unique.length === 0) throw new InvalidInput('events must name at least one event type');
  return unique;
}

export async function createEndpoint(
  ctx: EndpointDeps,
  caller: Caller,
  input: EndpointInput,
): Promise<{ endpoint: EndpointView; secret: string }> {
  assertCanManageWebhooks(caller);
  const url = await checkedUrl(ctx, input.url);
  const secret = newWebhookSecret();
  const nowIso = ctx.clock.now().toISOString();
  const row: EndpointRow = {
    id: randomUUID(),
    workspace_id: caller.workspaceId,
    url,
    description: input.description ?? '',
    event_types: JSON.stringify(checkedEvents(input.events)),
    secret_sealed: encrypt(ctx.keys.webhookSecrets, secret),
    previous_secret_sealed: null,
    previous_secret_until: null,
    enabled: 1,
    created_by: caller.userId,
    created_at: nowIso,
    updated_at: nowIso,
  };
  await ctx.db.transaction().execute(async (trx) => {
    // Two creations at once must not both pass the count.
    await lockRow(trx, 'workspaces', caller.workspaceId);
    if ((await countEndpoints(trx, caller.workspaceId)) >= ENDPOINTS_PER_WORKSPACE) {
      throw new Forbidden(`A workspace can have at most ${ENDPOINTS_PER_WORKSPACE} webhook endpoints`);
    }
    await insertEndpoint(trx, row);
  });
  return { endpoint: endpointView(row), secret };
}

export async function listEndpointViews(ctx: Pick<AppContext, 'db'>, caller: Caller): Promise<EndpointView[]> {
  assertCanManageWebhooks(caller);
  return (await listEndpoints(ctx.db, caller.workspaceId)).map(endpointView);
}

export async function changeEndpoint(
  ctx: EndpointDeps,
  caller: Caller,
  id: string,
  change: Partial<EndpointInput> & { enabled?: boolean },
): Promise<EndpointView> {
  const endpoint = await endpointOf(ctx, caller, id);
  const changed: EndpointRow = {
    ...endpoint,
    ...(change.url === undefined ? {} : { url: await checkedUrl(ctx, change.url) }),
    ...(change.events === undefined ? {} : { event_types: JSON.stringify(checkedEvents(change.events)) }),
    ...(change.description === undefined ? {} : { description: change.description }),
    ...(change.enabled === undefined ? {} : { enabled: change.enabled ? 1 : 0 }),
    updated_at: ctx.clock.now().toISOString(),
  };
  const { url, event_types, description, enabled, updated_at } = changed;
  await updateEndpoint(ctx.db, id, { url, event_types, description, enabled, updated_at });
  return endpointView(changed);
}

export async function removeEndpoint(ctx: Pick<AppContext, 'db'>, caller: Caller, id: string): Promise<void> {
  assertCanManageWebhooks(caller);
  if (!(await deleteEndpoint(ctx.db, caller.workspaceId, id))) throw new NotFound('Webhook endpoint not found');
}

/**
 * A new signing secret, shown once. Attempts from now on are signed with it, and for a day
 * with the one it replaces as well, so receivers can switch without refusing a message.
 */
export async function rotateSecret(ctx: EndpointDeps, caller: Caller, id: string): Promise<string> {
  const endpoint = await endpointOf(ctx, caller, id);
  const secret = newWebhookSecret();
  const now = ctx.clock.now();
  await updateEndpoint(ctx.db, id, {
    secret_sealed: encrypt(ctx.keys.webhookSecrets, secret),
    previous_secret_sealed: endpoint.secret_sealed,
    previous_secret_until: new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString(),
    updated_at: now.toISOString(),
  });
  return secret;
}

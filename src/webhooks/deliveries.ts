import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import type { WebhookDeliveryStatus } from '../db/tables-webhooks.js';
import { Conflict, NotFound } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { endpointOf } from './endpoints.js';
import { queueMessage, TEST_EVENT_TYPE } from './outbox.js';
import { deliveryDetail, deliveryView } from './views.js';
import {
  attemptsOf,
  type DeliveryWithMessage,
  deliveryOf,
  insertDeliveries,
  makeDueNow,
  pageOfDeliveries,
} from './webhooks.store.js';

type DeliveryDeps = Pick<AppContext, 'db' | 'clock' | 'webhooks'>;

export async function listDeliveries(
  ctx: Pick<AppContext, 'db'>,
  caller: Caller,
  endpointId: string,
  page: { limit: number; offset: number; status?: WebhookDeliveryStatus },
) {
  await endpointOf(ctx, caller, endpointId);
  const { rows, total } = await pageOfDeliveries(ctx.db, endpointId, page);
  return {
    items: rows.map(deliveryView),
    total,
    limit: page.limit,
    offset: page.offset,
    hasMore: page.offset + rows.length < total,
  };
}

async function deliveryIn(ctx: Pick<AppContext, 'db'>, endpointId: string, deliveryId: string): Promise<DeliveryWithMessage> {
  const delivery = await deliveryOf(ctx.db, endpointId, deliveryId);
  if (!delivery) throw new NotFound('Webhook delivery not found');
  return delivery;
}

/** A delivery with its payload and the log of its attempts. */
export async function deliveryWithLog(ctx: Pick<AppContext, 'db'>, caller: Caller, endpointId: string, deliveryId: string) {
  await endpointOf(ctx, caller, endpointId);
  const delivery = await deliveryIn(ctx, endpointId, deliveryId);
  return deliveryDetail(delivery, await attemptsOf(ctx.db, deliveryId));
}

/**
 * Sends a delivery's message again. One that ended (delivered or failed) gets a new
 * delivery with a log of its own; the message keeps its id, so a receiver that already
 * handled it can tell it is a repeat. One still waiting for a retry is tried now instead,
 * so that its own retries do not send the message a second time later.
 */
export async function redeliver(ctx: DeliveryDeps, caller: Caller, endpointId: string, deliveryId: string) {
  const endpoint = await endpointOf(ctx, caller, endpointId);
  if (endpoint.enabled !== 1) throw new Conflict('The webhook endpoint is disabled');
  const original = await deliveryIn(ctx, endpointId, deliveryId);
  const nowIso = ctx.clock.now().toISOString();
  if (original.status === 'pending') {
    await makeDueNow(ctx.db, deliveryId, nowIso);
    ctx.webhooks.kick();
    return deliveryView(await deliveryIn(ctx, endpointId, deliveryId));
  }
  const id = randomUUID();
  await insertDeliveries(ctx.db, [
    {
      id,
      endpoint_id: endpointId,
      message_id: original.message_id,
      status: 'pending',
      attempts: 0,
      next_attempt_at: nowIso,
      created_at: nowIso,
    },
  ]);
  ctx.webhooks.kick();
  return deliveryView(await deliveryIn(ctx, endpointId, id));
}

/** A `webhook.test` message to one endpoint, so its owner can check the receiver's signature check. */
export async function sendTestEvent(ctx: DeliveryDeps, caller: Caller, endpointId: string) {
  const endpoint = await endpointOf(ctx, caller, endpointId);
  if (endpoint.enabled !== 1) throw new Conflict('The webhook endpoint is disabled');
  const nowIso = ctx.clock.now().toISOString();
  const event = {
    workspaceId: caller.workspaceId,
    type: TEST_EVENT_TYPE as typeof TEST_EVENT_TYPE,
    data: { endpointId, workspaceId: caller.workspaceId },
  };
  const [id] = await ctx.db.transaction().execute((trx) => queueMessage(trx, nowIso, event, [endpoint]));
  ctx.webhooks.kick();
  if (!id) throw new Error('a test message queued no delivery');
  return deliveryView(await deliveryIn(ctx, endpointId, id));
}

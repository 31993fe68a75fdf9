import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';
import { newMessageId } from './signing.js';
import { type EndpointRow, enabledEndpoints, insertDeliveries, insertMessage } from './webhooks.store.js';

/** The events a workspace can subscribe an endpoint to. */
export const WEBHOOK_EVENT_TYPES = ['execution.completed', 'execution.failed', 'artifact.created', 'credits.granted'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Sent only when someone asks for it, to one endpoint; never subscribed to. */
export const TEST_EVENT_TYPE = 'webhook.test';

export interface WebhookEvent {
  workspaceId: string;
  type: WebhookEventType | typeof TEST_EVENT_TYPE;
  data: Record<string, unknown>;
}

/** The types an endpoint subscribed to; only validated types are ever stored. */
export function eventTypesOf(endpoint: Pick<EndpointRow, 'event_types'>): WebhookEventType[] {
  return JSON.parse(endpoint.event_types) as WebhookEventType[];
}

/** The body every attempt of a message sends, as Standard Webhooks suggests: type, timestamp, data. */
function payloadOf(event: WebhookEvent, nowIso: string): string {
  return JSON.stringify({ type: event.type, timestamp: nowIso, data: event.data });
}

/**
 * Queues an event for the given endpoints within `trx`: the message and its deliveries are
 * written in the transaction that made the change they report, so a change is never
 * committed without its event, nor an event without its change. Returns the deliveries.
 */
export async function queueMessage(
  trx: Kysely<Tables>,
  nowIso: string,
  event: WebhookEvent,
  endpoints: Pick<EndpointRow, 'id'>[],
): Promise<string[]> {
  if (endpoints.length === 0) return [];
  const messageId = newMessageId();
  await insertMessage(trx, {
    id: messageId,
    workspace_id: event.workspaceId,
    event_type: event.type,
    payload: payloadOf(event, nowIso),
    created_at: nowIso,
  });
  const deliveries = endpoints.map((endpoint) => ({
    id: randomUUID(),
    endpoint_id: endpoint.id,
    message_id: messageId,
    status: 'pending' as const,
    attempts: 0,
    next_attempt_at: nowIso,
    created_at: nowIso,
  }));
  await insertDeliveries(trx, deliveries);
  return deliveries.map((delivery) => delivery.id);
}

/** Queues an event for every enabled endpoint of its workspace that subscribed to its type. */
export async function queueWebhookEvent(trx: Kysely<Tables>, nowIso: string, event: WebhookEvent): Promise<boolean> {
  const endpoints = (await enabledEndpoints(trx, event.workspaceId)).filter((endpoint) =>
    (eventTypesOf(endpoint) as string[]).includes(event.type),
  );
  return (await queueMessage(trx, nowIso, event, endpoints)).length > 0;
}

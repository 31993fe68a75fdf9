import { eventTypesOf, type WebhookEventType } from './outbox.js';
import type { AttemptRow, DeliveryWithMessage, EndpointRow } from './webhooks.store.js';

export interface EndpointView {
  id: string;
  url: string;
  description: string;
  events: WebhookEventType[];
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

export function endpointView(row: EndpointRow): EndpointView {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    events: eventTypesOf(row),
    enabled: row.enabled === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function deliveryView(row: DeliveryWithMessage) {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    messageId: row.message_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastAttemptAt: row.last_attempt_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    createdAt: row.created_at,
  };
}

export function deliveryDetail(row: DeliveryWithMessage, attempts: AttemptRow[]) {
  return {
    ...deliveryView(row),
    payload: JSON.parse(row.payload) as { type: string; timestamp: string; data: Record<string, unknown> },
    attemptLog: attempts.map((attempt) => ({
      number: attempt.number,
      attemptedAt: attempt.attempted_at,
      statusCode: attempt.status_code,
      error: attempt.error,
      durationMs: attempt.duration_ms,
    })),
  };
}

import { Type } from 'typebox';
import { NullableTimestamp, PageFields, PageQuery, Timestamp } from '../http/schemas.js';

/** The event types an endpoint can subscribe to (outbox.ts's WEBHOOK_EVENT_TYPES). */
const EventType = Type.Union([
  Type.Literal('execution.completed'),
  Type.Literal('execution.failed'),
  Type.Literal('artifact.created'),
  Type.Literal('credits.granted'),
]);
const Events = Type.Array(EventType, { minItems: 1, maxItems: 16 });
const Url = Type.String({ minLength: 1, maxLength: 2000 });
const Description = Type.String({ maxLength: 200 });

export const CreateWebhookBody = Type.Object(
  { url: Url, events: Type.Optional(Events), description: Type.Optional(Description) },
  { additionalProperties: false },
);

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const WebhookEndpoint = Type.Object({
  id: Type.String(),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(EventType),
  enabled: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** The signing secret is in this answer and the rotation's only: it is never shown again. */
export const CreatedWebhookEndpoint = Type.Object({ ...WebhookEndpoint.properties, secret: Type.String() });
export const WebhookSecret = Type.Object({ secret: Type.String() });
export const WebhookEndpointList = Type.Object({ webhooks: Type.Array(WebhookEndpoint) });

const DeliveryStatus = Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]);

export const WebhookDelivery = Type.Object({
  id: Type.String(),
  endpointId: Type.String(),
  messageId: Type.String(),
  eventType: Type.String(),
  status: DeliveryStatus,
  attempts: Type.Integer(),
  nextAttemptAt: NullableTimestamp,
  lastAttemptAt: NullableTimestamp,
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
});

export const WebhookDeliveryDetail = Type.Object({
  ...WebhookDelivery.properties,
  payload: Type.Object({ type: Type.String(), timestamp: Timestamp, data: Type.Record(Type.String(), Type.Unknown()) }),
  attemptLog: Type.Array(
    Type.Object({
      number: Type.Integer(),
      attemptedAt: Timestamp,
      statusCode: Type.Union([Type.Integer(), Type.Null()]),
      error: Type.Union([Type.String(), Type.Null()]),
      durationMs: Type.Integer(),
    }),
  ),
});

export const WebhookDeliveryPage = Type.Object({ items: Type.Array(WebhookDelivery), ...PageFields });
export const DeliveriesQuery = Type.Object({ ...PageQuery, status: Type.Optional(DeliveryStatus) });
export const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
});

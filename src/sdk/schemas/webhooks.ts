import { Type } from 'typebox';
import { NullableTimestamp, PageFields, Timestamp } from './common.js';

/** The event types an endpoint can subscribe to (outbox.ts's WEBHOOK_EVENT_TYPES). */
export const WebhookEventTypeSchema = Type.Union([
  Type.Literal('execution.completed'),
  Type.Literal('execution.failed'),
  Type.Literal('artifact.created'),
  Type.Literal('credits.granted'),
]);
const Events = Type.Array(WebhookEventTypeSchema, { minItems: 1, maxItems: 16 });
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

export const WebhookEndpointSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  description: Type.String(),
  events: Type.Array(WebhookEventTypeSchema),
  enabled: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** The answer to creating an endpoint: the only time its signing secret is shown, besides a rotation. */
export const CreatedWebhookEndpointSchema = Type.Object({ ...WebhookEndpointSchema.properties, secret: Type.String() });
export const WebhookSecret = Type.Object({ secret: Type.String() });
export const WebhookEndpointList = Type.Object({ webhooks: Type.Array(WebhookEndpointSchema) });

export const WebhookDeliveryStatusSchema = Type.Union([
  Type.Literal('pending'),
  Type.Literal('delivered'),
  Type.Literal('failed'),
]);

/** One message sent to one endpoint, with where its attempts stand. */
export const WebhookDeliverySchema = Type.Object({
  id: Type.String(),
  endpointId: Type.String(),
  /** The webhook-id header; a redelivery keeps it, so receivers can tell a repeat. */
  messageId: Type.String(),
  /** One of the subscribed types, or `webhook.test`. */
  eventType: Type.String(),
  status: WebhookDeliveryStatusSchema,
  attempts: Type.Integer(),
  nextAttemptAt: NullableTimestamp,
  lastAttemptAt: NullableTimestamp,
  lastStatusCode: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
});

export const WebhookAttemptSchema = Type.Object({
  number: Type.Integer(),
  attemptedAt: Timestamp,
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Integer(),
});

export const WebhookDeliveryDetailSchema = Type.Object({
  ...WebhookDeliverySchema.properties,
  payload: Type.Object({ type: Type.String(), timestamp: Timestamp, data: Type.Record(Type.String(), Type.Unknown()) }),
  attemptLog: Type.Array(WebhookAttemptSchema),
});

export const WebhookDeliveryPage = Type.Object({ items: Type.Array(WebhookDeliverySchema), ...PageFields });

import type { OperationReference } from '../http/operation-reference.js';

/*
 * What the API reference says of the webhooks operations: the group, a summary and a description,
 * a request body to copy and an answer (most taken from a real server's answers, with the
 * addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

/** Objects that appear in more than one answer (a list and its detail), written once. */
const WEBHOOK_ENDPOINT = {
  id: '19aca3f7-28da-4aba-a58d-29d06c3a923f',
  url: 'https://hooks.example.com/skillet',
  description: 'Tell the build bot when runs end',
  events: ['execution.completed', 'execution.failed'],
  enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const FAILED_DELIVERY = {
  id: 'e250eba0-161e-410e-a4ae-57dd05a68db9',
  endpointId: '19aca3f7-28da-4aba-a58d-29d06c3a923f',
  messageId: 'msg_SnezzveeARZpP197VEETV7kD6rf',
  eventType: 'webhook.test',
  status: 'pending',
  attempts: 1,
  nextAttemptAt: '2026-01-01T00:00:05.000Z',
  lastAttemptAt: '2026-01-01T00:00:00.000Z',
  lastStatusCode: null,
  lastError: 'the connection was refused',
  createdAt: '2026-01-01T00:00:00.000Z',
};

export const webhooksReference: OperationReference = {
  'POST /api/v1/webhooks': {
    doc: [
      'Webhooks',
      'Add a webhook endpoint',
      'Subscribes a public https address to run and artifact events. The signing secret is in this answer only.',
    ],
    request: {
      url: 'https://hooks.example.com/skillet',
      events: ['execution.completed', 'execution.failed'],
      description: 'Tell the build bot when runs end',
    },
    response: {
      ...WEBHOOK_ENDPOINT,
      secret: 'whsec_XTv5Ggk+iVNyDaLw8PsGWIXUuMKhC1yiEYMJK5jru2Q=',
    },
  },
  'GET /api/v1/webhooks': {
    doc: ['Webhooks', 'List webhook endpoints', 'The workspace’s endpoints and the events each receives.'],
    response: {
      webhooks: [WEBHOOK_ENDPOINT],
    },
  },
  'GET /api/v1/webhooks/{id}': {
    doc: ['Webhooks', 'Read a webhook endpoint', 'Its address, events, and whether it is paused.'],
    response: WEBHOOK_ENDPOINT,
  },
  'PATCH /api/v1/webhooks/{id}': {
    doc: ['Webhooks', 'Change a webhook endpoint', 'Changes its address, events or description, or pauses it.'],
    request: { enabled: false },
    response: WEBHOOK_ENDPOINT,
  },
  'DELETE /api/v1/webhooks/{id}': {
    doc: ['Webhooks', 'Remove a webhook endpoint', 'Nothing more is sent to it.'],
    response: {
      success: true,
    },
  },
  'POST /api/v1/webhooks/{id}/secret': {
    doc: [
      'Webhooks',
      'Roll the signing secret',
      'Issues a new secret; the old one keeps signing for a day so receivers can switch.',
    ],
    response: {
      secret: 'whsec_W+Vyp2fsn2TyEp0luDg0yV7W6+9F4E8F+xVZ5+cZLlA=',
    },
  },
  'POST /api/v1/webhooks/{id}/test': {
    doc: ['Webhooks', 'Send a test event', 'Delivers a ping now, to check the receiver.'],
    response: {
      id: 'e250eba0-161e-410e-a4ae-57dd05a68db9',
      endpointId: '19aca3f7-28da-4aba-a58d-29d06c3a923f',
      messageId: 'msg_SnezzveeARZpP197VEETV7kD6rf',
      eventType: 'webhook.test',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: '2026-01-01T00:00:00.000Z',
      lastAttemptAt: null,
      lastStatusCode: null,
      lastError: null,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  },
  'GET /api/v1/webhooks/{id}/deliveries': {
    doc: ['Webhooks', 'List deliveries', 'Recent deliveries to the endpoint with their outcome.'],
    response: {
      items: [FAILED_DELIVERY],
      total: 1,
      limit: 20,
      offset: 0,
      hasMore: false,
    },
  },
  'GET /api/v1/webhooks/{id}/deliveries/{deliveryId}': {
    doc: ['Webhooks', 'Read a delivery', 'The request sent, each attempt and the receiver’s answers.'],
    response: {
      ...FAILED_DELIVERY,
      payload: {
        type: 'webhook.test',
        timestamp: '2026-01-01T00:00:00.000Z',
        data: {
          endpointId: '19aca3f7-28da-4aba-a58d-29d06c3a923f',
          workspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
        },
      },
      attemptLog: [
        {
          number: 1,
          attemptedAt: '2026-01-01T00:00:00.000Z',
          statusCode: null,
          error: 'the connection was refused',
          durationMs: 5,
        },
      ],
    },
  },
  'POST /api/v1/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    doc: ['Webhooks', 'Send a delivery again', 'Queues the same event again, as a new delivery.'],
    response: {
      ...FAILED_DELIVERY,
      nextAttemptAt: '2026-01-01T00:00:00.000Z',
    },
  },
};

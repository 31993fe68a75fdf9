import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { InvalidInput } from '../errors.js';
import { IdParams } from '../http/schemas.js';
import { callerOf } from '../identity/credentials.js';
import { Success } from '../sdk/schemas/common.js';
import {
  CreatedWebhookEndpointSchema,
  CreateWebhookBody,
  UpdateWebhookBody,
  WebhookDeliveryDetailSchema,
  WebhookDeliveryPage,
  WebhookDeliverySchema,
  WebhookEndpointList,
  WebhookEndpointSchema,
  WebhookSecret,
} from '../sdk/schemas/webhooks.js';
import { deliveryWithLog, listDeliveries, redeliver, sendTestEvent } from './deliveries.js';
import { changeEndpoint, createEndpoint, endpointOf, listEndpointViews, removeEndpoint, rotateSecret } from './endpoints.js';
import { endpointView } from './views.js';
import { DeliveriesQuery, DeliveryParams } from './webhooks.schemas.js';

const DELIVERIES_MAX_LIMIT = 100;

/** A workspace's outbound webhooks: its endpoints, their delivery log, redelivery and a test event. */
export function webhookEndpointRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/webhooks',
      { config: { auth: 'user' }, schema: { body: CreateWebhookBody, response: { 201: CreatedWebhookEndpointSchema } } },
      async (request, reply) => {
        const { endpoint, secret } = await createEndpoint(ctx, callerOf(request), request.body);
        return reply.status(201).send({ ...endpoint, secret });
      },
    );

    app.get('/webhooks', { config: { auth: 'user' }, schema: { response: { 200: WebhookEndpointList } } }, async (request) => ({
      webhooks: await listEndpointViews(ctx, callerOf(request)),
    }));

    app.get(
      '/webhooks/:id',
      { config: { auth: 'user' }, schema: { params: IdParams, response: { 200: WebhookEndpointSchema } } },
      async (request) => endpointView(await endpointOf(ctx, callerOf(request), request.params.id)),
    );

    app.patch(
      '/webhooks/:id',
      {
        config: { auth: 'user' },
        schema: { params: IdParams, body: UpdateWebhookBody, response: { 200: WebhookEndpointSchema } },
      },
      async (request) => changeEndpoint(ctx, callerOf(request), request.params.id, request.body),
    );

    app.delete(
      '/webhooks/:id',
      { config: { auth: 'user' }, schema: { params: IdParams, response: { 200: Success } } },
      async (request) => {
        await removeEndpoint(ctx, callerOf(request), request.params.id);
        return { success: true as const };
      },
    );

    app.post(
      '/webhooks/:id/secret',
      { config: { auth: 'user' }, schema: { params: IdParams, response: { 200: WebhookSecret } } },
      async (request) => ({ secret: await rotateSecret(ctx, callerOf(request), request.params.id) }),
    );

    app.post(
      '/webhooks/:id/test',
      { config: { auth: 'user' }, schema: { params: IdParams, response: { 202: WebhookDeliverySchema } } },
      async (request, reply) => reply.status(202).send(await sendTestEvent(ctx, callerOf(request), request.params.id)),
    );

    app.get(
      '/webhooks/:id/deliveries',
      {
        config: { auth: 'user' },
        schema: { params: IdParams, querystring: DeliveriesQuery, response: { 200: WebhookDeliveryPage } },
      },
      async (request) => {
        const { limit, offset, status } = request.query;
        const page = { limit: limit === undefined ? 20 : Number(limit), offset: offset === undefined ? 0 : Number(offset) };
        if (page.limit < 1 || page.limit > DELIVERIES_MAX_LIMIT) {
          throw new InvalidInput(`limit must be from 1 to ${DELIVERIES_MAX_LIMIT}`);
        }
        return listDeliveries(ctx, callerOf(request), request.params.id, { ...page, ...(status ? { status } : {}) });
      },
    );

    app.get(
      '/webhooks/:id/deliveries/:deliveryId',
      { config: { auth: 'user' }, schema: { params: DeliveryParams, response: { 200: WebhookDeliveryDetailSchema } } },
      async (request) => deliveryWithLog(ctx, callerOf(request), request.params.id, request.params.deliveryId),
    );

    app.post(
      '/webhooks/:id/deliveries/:deliveryId/redeliver',
      { config: { auth: 'user' }, schema: { params: DeliveryParams, response: { 202: WebhookDeliverySchema } } },
      async (request, reply) =>
        reply.status(202).send(await redeliver(ctx, callerOf(request), request.params.id, request.params.deliveryId)),
    );
  };
}

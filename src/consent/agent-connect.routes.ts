import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { callerOf } from '../identity/credentials.js';
import { createConnectRequest, decideConnect, getConnectRequest } from './agent-connect.js';
import { ConnectBody, ConnectParams, ConnectRequestSchema, CreatedConnect } from './agent-connect.schemas.js';

/**
 * Scoped consent (DESIGN §11): the key asks, the person who owns it answers with their
 * auth token, here or on the page at `approveUrl`.
 */
export function agentConnectRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/agents/connect',
      {
        // Asking to narrow is allowed to a key that can only read: it can only lose access by it.
        config: { auth: 'user', bearer: ['api_key', 'oauth'], scope: 'read' },
        schema: { body: ConnectBody, response: { 202: CreatedConnect } },
      },
      async (request, reply) => {
        const created = await createConnectRequest(ctx, callerOf(request), request.body);
        return reply.status(202).send({
          requestId: created.requestId,
          status: 'pending' as const,
          approveUrl: `${ctx.config.publicUrl}/agents/connect/${created.requestId}`,
          expiresAt: created.expiresAt,
        });
      },
    );

    app.get(
      '/agents/connect/:requestId',
      {
        config: { auth: 'user', bearer: ['api_key', 'oauth'] },
        schema: { params: ConnectParams, response: { 200: ConnectRequestSchema } },
      },
      async (request) => getConnectRequest(ctx, callerOf(request), request.params.requestId),
    );

    for (const decision of ['approve', 'deny'] as const) {
      app.post(
        `/agents/connect/:requestId/${decision}`,
        { config: { auth: 'session' }, schema: { params: ConnectParams, response: { 200: ConnectRequestSchema } } },
        async (request) => decideConnect(ctx, callerOf(request), request.params.requestId, decision),
      );
    }
  };
}

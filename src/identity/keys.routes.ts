import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { IdParams } from '../http/schemas.js';
import { Success } from '../sdk/schemas/common.js';
import { CreatedKey, KeyList } from '../sdk/schemas/identity.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.js';
import { callerOf } from './credentials.js';
import { CreateKeyBody } from './keys.schemas.js';

/** Key management is a person's act: these routes take an auth token, never an API key. */
export function keyRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/keys',
      { config: { auth: 'session' }, schema: { body: CreateKeyBody, response: { 201: CreatedKey } } },
      async (request, reply) => {
        const { row, plaintext } = await createApiKey(ctx, callerOf(request), request.body.label.trim() || 'API key');
        return reply.status(201).send({
          id: row.id,
          key: plaintext,
          label: row.label,
          keyPreview: row.key_preview,
          workspaceId: row.workspace_id,
          createdAt: row.created_at,
        });
      },
    );

    app.get('/keys', { config: { auth: 'session' }, schema: { response: { 200: KeyList } } }, async (request) => ({
      keys: await listApiKeys(ctx, callerOf(request)),
    }));

    app.delete(
      '/keys/:id',
      { config: { auth: 'user' }, schema: { params: IdParams, response: { 200: Success } } },
      async (request) => {
        await revokeApiKey(ctx, callerOf(request), request.params.id);
        return { success: true as const };
      },
    );
  };
}

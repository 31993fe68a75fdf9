import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { deliver } from './artifacts.routes.js';
import { publicFile } from './public-files.js';
import { PublicParams } from './public-files.schemas.js';

/** Published files, without credentials; `deliver` sandboxes them like every user file. */
export function publicFileRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/public/:artifactId/*',
      { config: { auth: 'public' }, schema: { hide: true, params: PublicParams } },
      async (request, reply) => {
        const file = await publicFile(ctx, request.params.artifactId, request.params['*']);
        return deliver(reply.header('cache-control', 'no-cache'), file);
      },
    );
  };
}

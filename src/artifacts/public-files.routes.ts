import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.js';
import { deliver } from './artifacts.routes.js';
import { publicFile } from './public-files.js';

const PublicParams = Type.Object({ artifactId: Type.String({ maxLength: 100 }), '*': Type.String({ maxLength: 2048 }) });

/**
 * Published files, without credentials. They are user content on this origin (unless
 * PUBLIC_FILES_URL gives them another), so they are sandboxed: no script of theirs runs
 * with this origin's rights, and nothing is sniffed into a more dangerous type.
 */
export function publicFileRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/public/:artifactId/*',
      { config: { auth: 'public' }, schema: { hide: true, params: PublicParams } },
      async (request, reply) => {
        const file = await publicFile(ctx, request.params.artifactId, request.params['*']);
        reply.header('content-security-policy', 'sandbox').header('cache-control', 'no-cache');
        return deliver(reply, file);
      },
    );
  };
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { callerOf } from '../identity/credentials.js';
import { deliver } from './artifacts.routes.js';
import { ArtifactParams, PreviewFileParams, PreviewLink } from './artifacts.schemas.js';
import { previewFile, previewLink } from './preview-links.js';

/** Previews of a bundle's files in a sandboxed frame (preview-links.ts). */
export function artifactPreviewRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/artifacts/:artifactId/preview-link',
      { config: { auth: 'user' }, schema: { params: ArtifactParams, response: { 200: PreviewLink } } },
      async (request) => previewLink(ctx, callerOf(request), request.params.artifactId),
    );

    // The signed link is the credential: the frame's requests carry no other. The path is
    // read whole (artifact, then the link's token, then the file), one wildcard below a
    // prefix of its own.
    app.get('/previews/*', { config: { auth: 'public' }, schema: { params: PreviewFileParams } }, async (request, reply) => {
      const [artifactId = '', token = '', ...file] = request.params['*'].split('/');
      return deliver(reply, await previewFile(ctx, artifactId, token, file.join('/')));
    });
  };
}

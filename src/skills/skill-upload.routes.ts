import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { callerOf } from '../http/credentials.js';
import { installFromFolder, UPLOAD_BODY_LIMIT } from './skill-upload.js';
import { InstalledSkill, InstallFolderBody } from './skill-upload.schemas.js';

/** A skill installed into the caller's workspace from a folder of files (`skillet skills install PATH`). */
export function skillUploadRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/skills',
      {
        config: { auth: 'user' },
        bodyLimit: UPLOAD_BODY_LIMIT,
        schema: { body: InstallFolderBody, response: { 201: InstalledSkill } },
      },
      async (request, reply) => {
        reply.status(201);
        return installFromFolder(ctx, callerOf(request), request.body);
      },
    );
  };
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ArtifactParams } from '../artifacts/artifacts.schemas.js';
import type { AppContext } from '../context.js';
import { callerOf } from '../identity/credentials.js';
import { ArtifactSchema } from '../sdk/schemas/artifacts.js';
import { InstalledSkillSchema } from '../sdk/schemas/skills.js';
import { installArtifact } from './install-from-artifact.js';
import { changeableSkill, removeSkill } from './skill-removal.js';
import { installFromFolder, UPLOAD_BODY_LIMIT } from './skill-upload.js';
import { InstallFolderBody, Removed, SkillParams, UpdateFolderBody } from './skill-upload.schemas.js';

/**
 * Skills installed into the caller's workspace from a folder of files (`skillet skills
 * install PATH`) or from an artifact that holds one, updated from a new version, and removed.
 */
export function skillUploadRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/skills',
      {
        config: { auth: 'user' },
        bodyLimit: UPLOAD_BODY_LIMIT,
        schema: { body: InstallFolderBody, response: { 201: InstalledSkillSchema } },
      },
      async (request, reply) => {
        reply.status(201);
        return installFromFolder(ctx, callerOf(request), request.body);
      },
    );

    app.put(
      '/skills/:slug',
      {
        config: { auth: 'user' },
        bodyLimit: UPLOAD_BODY_LIMIT,
        schema: { params: SkillParams, body: UpdateFolderBody, response: { 200: InstalledSkillSchema } },
      },
      async (request) => {
        const caller = callerOf(request);
        const { slug } = request.params;
        const installed = await changeableSkill(ctx, caller, slug, 'update');
        return installFromFolder(ctx, caller, { ...request.body, slug }, installed);
      },
    );

    app.delete(
      '/skills/:slug',
      { config: { auth: 'user' }, schema: { params: SkillParams, response: { 200: Removed } } },
      async (request) => {
        await removeSkill(ctx, callerOf(request), request.params.slug);
        return { success: true as const };
      },
    );

    // Beside the artifacts' other routes in the API, and answering in their older error shape.
    app.post(
      '/artifacts/:artifactId/install',
      {
        config: { auth: 'user', errorFamily: 'artifact' },
        schema: { params: ArtifactParams, response: { 200: ArtifactSchema } },
      },
      async (request) => installArtifact(ctx, callerOf(request), request.params.artifactId),
    );
  };
}

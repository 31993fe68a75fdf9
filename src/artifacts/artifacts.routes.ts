import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { create as contentDisposition } from 'content-disposition';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { InvalidInput } from '../errors.js';
import { callerOf } from '../identity/credentials.js';
import { ArtifactDetail, ArtifactList, ManifestSchema, Published } from '../sdk/schemas/artifacts.js';
import { Success } from '../sdk/schemas/common.js';
import {
  artifactDetail,
  artifactDownload,
  artifactFile,
  artifactManifest,
  artifactRaw,
  listArtifacts,
  removeArtifact,
} from './artifacts.js';
import { ArtifactFileParams, ArtifactParams, ListQuery } from './artifacts.schemas.js';
import type { Delivery } from './delivery.js';
import { publishArtifact, unpublishArtifact } from './public-files.js';

const LIST_DEFAULT = 20;
const LIST_MAX = 100;

/**
 * What every response carrying user content is sent with. It is served from this origin
 * (published files too, unless PUBLIC_FILES_URL gives them another), so it is sandboxed:
 * no script of a user's page runs with this origin's rights, reads its storage or calls
 * its API with the visitor's cookies; and nothing is sniffed into a more dangerous type.
 */
const USER_CONTENT_HEADERS = { 'content-security-policy': 'sandbox', 'x-content-type-options': 'nosniff' };

/** Sends a file body: the only way user content leaves the server. */
export function deliver(reply: FastifyReply, delivery: Delivery, disposition?: 'attachment') {
  reply.headers(USER_CONTENT_HEADERS).header('content-type', delivery.contentType);
  if (delivery.size !== undefined) reply.header('content-length', delivery.size);
  if (disposition && delivery.fileName)
    reply.header('content-disposition', contentDisposition(delivery.fileName, { type: disposition }));
  return reply.send(delivery.body);
}

/**
 * The artifact routes. They answer failures in the older `{error, isRunning}` shape,
 * except manifest and publish, which use the usual envelope.
 */
export function artifactRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const legacy = { auth: 'user' as const, errorFamily: 'artifact' as const };
    const standard = { auth: 'user' as const };

    app.get(
      '/artifacts',
      { config: legacy, schema: { querystring: ListQuery, response: { 200: ArtifactList } } },
      async (request) => {
        const { limit: limitText, offset: offsetText } = request.query;
        const limit = limitText === undefined ? LIST_DEFAULT : Number(limitText);
        if (limit < 1 || limit > LIST_MAX) throw new InvalidInput(`limit must be from 1 to ${LIST_MAX}`);
        const offset = offsetText === undefined ? 0 : Number(offsetText);
        const { items, total } = await listArtifacts(ctx, callerOf(request), limit, offset);
        // The older clients' shape: without paging parameters, a bare array.
        if (limitText === undefined && offsetText === undefined) return items;
        return { items, total, limit, offset, hasMore: offset + items.length < total };
      },
    );

    app.get(
      '/artifacts/:artifactId',
      { config: legacy, schema: { params: ArtifactParams, response: { 200: ArtifactDetail } } },
      async (request) => artifactDetail(ctx, callerOf(request), request.params.artifactId),
    );

    app.get(
      '/artifacts/:artifactId/manifest',
      { config: standard, schema: { params: ArtifactParams, response: { 200: ManifestSchema } } },
      async (request) => artifactManifest(ctx, callerOf(request), request.params.artifactId),
    );

    app.get('/artifacts/:artifactId/download', { config: legacy, schema: { params: ArtifactParams } }, async (request, reply) =>
      deliver(reply, await artifactDownload(ctx, callerOf(request), request.params.artifactId), 'attachment'),
    );

    app.get('/artifacts/:artifactId/raw', { config: legacy, schema: { params: ArtifactParams } }, async (request, reply) =>
      deliver(reply, await artifactRaw(ctx, callerOf(request), request.params.artifactId)),
    );

    app.get('/artifacts/:artifactId/file/*', { config: legacy, schema: { params: ArtifactFileParams } }, async (request, reply) =>
      deliver(reply, await artifactFile(ctx, callerOf(request), request.params.artifactId, request.params['*'])),
    );

    app.delete(
      '/artifacts/:artifactId',
      { config: legacy, schema: { params: ArtifactParams, response: { 200: Success } } },
      async (request) => {
        await removeArtifact(ctx, callerOf(request), request.params.artifactId);
        return { success: true as const };
      },
    );

    app.post(
      '/artifacts/:artifactId/publish',
      { config: standard, schema: { params: ArtifactParams, response: { 200: Published } } },
      async (request) => publishArtifact(ctx, callerOf(request), request.params.artifactId),
    );

    app.post(
      '/artifacts/:artifactId/unpublish',
      { config: legacy, schema: { params: ArtifactParams, response: { 200: Success } } },
      async (request) => {
        await unpublishArtifact(ctx, callerOf(request), request.params.artifactId);
        return { success: true as const };
      },
    );
  };
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { deliver } from '../artifacts/artifacts.routes.js';
import type { AppContext } from '../context.js';
import { InvalidInput } from '../errors.js';
import { callerOf } from '../identity/credentials.js';
import { Success } from '../sdk/schemas/common.js';
import { FileList, FileSchema } from '../sdk/schemas/files.js';
import { fileContent, fileDetail, listFiles, removeFile, uploadFile } from './files.js';
import { FileListQuery, FileParams, UploadHeaders } from './files.schemas.js';
import { uploadOf } from './upload-body.js';

const LIST_DEFAULT = 20;
const LIST_MAX = 100;

/** Input files (DESIGN §15): uploads a workspace gives its runs. The usual error envelope throughout. */
export function fileRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const user = { auth: 'user' as const };

    // Apart, so that only the upload reads its body itself, as a stream, whatever its type.
    await app.register(async (uploads) => {
      uploads.removeAllContentTypeParsers();
      uploads.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
      uploads.post(
        '/files',
        { config: user, schema: { headers: UploadHeaders, response: { 201: FileSchema } } },
        async (request, reply) => {
          const { upload, declaredLength } = await uploadOf(request);
          const file = await uploadFile(ctx, callerOf(request), upload, declaredLength);
          return reply.code(201).send(file);
        },
      );
    });

    app.get('/files', { config: user, schema: { querystring: FileListQuery, response: { 200: FileList } } }, async (request) => {
      const limit = request.query.limit === undefined ? LIST_DEFAULT : Number(request.query.limit);
      if (limit < 1 || limit > LIST_MAX) throw new InvalidInput(`limit must be from 1 to ${LIST_MAX}`);
      const offset = request.query.offset === undefined ? 0 : Number(request.query.offset);
      const { items, total } = await listFiles(ctx, callerOf(request), limit, offset);
      return { items, total, limit, offset, hasMore: offset + items.length < total };
    });

    app.get('/files/:fileId', { config: user, schema: { params: FileParams, response: { 200: FileSchema } } }, async (request) =>
      fileDetail(ctx, callerOf(request), request.params.fileId),
    );

    // Always a download: the bytes are a person's, with the type they were stored with.
    app.get('/files/:fileId/content', { config: user, schema: { params: FileParams } }, async (request, reply) =>
      deliver(reply, await fileContent(ctx, callerOf(request), request.params.fileId), 'attachment'),
    );

    app.delete(
      '/files/:fileId',
      { config: user, schema: { params: FileParams, response: { 200: Success } } },
      async (request) => {
        await removeFile(ctx, callerOf(request), request.params.fileId);
        return { success: true as const };
      },
    );
  };
}

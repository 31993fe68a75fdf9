import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { AppContext } from '../context.js';
import { InvalidInput, NotFound } from '../errors.js';
import { findExecution } from './executions.store.js';
import { serveEventStream } from './stream.js';
import { verifyStreamSignature } from './stream-url.js';

const StreamParams = Type.Object({ executionId: Type.String({ minLength: 1, maxLength: 100 }) });
const StreamQuery = Type.Object({
  ts: Type.Optional(Type.String({ maxLength: 32 })),
  sig: Type.Optional(Type.String({ maxLength: 128 })),
  lastSeq: Type.Optional(Type.String({ maxLength: 16 })),
});

/** Where to resume: `lastSeq`, else a reconnecting browser's Last-Event-ID, else the start. */
function resumeAfter(lastSeq: string | undefined, lastEventId: string | string[] | undefined): number {
  const given = lastSeq ?? (Array.isArray(lastEventId) ? lastEventId[0] : lastEventId);
  if (given === undefined || given === '') return 0;
  if (!/^\d{1,12}$/.test(given)) throw new InvalidInput('lastSeq must be a non-negative integer');
  return Number(given);
}

/** The signed stream URL: no credential but its signature, which is checked first. */
export function streamRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/executions/:executionId/stream',
      { config: { auth: 'public' }, schema: { hide: true, params: StreamParams, querystring: StreamQuery } },
      async (request, reply) => {
        const { executionId } = request.params;
        verifyStreamSignature(ctx, executionId, request.query.ts, request.query.sig);
        const after = resumeAfter(request.query.lastSeq, request.headers['last-event-id']);
        if (!(await findExecution(ctx.db, executionId))) throw new NotFound('Execution not found');
        await serveEventStream(ctx, reply, executionId, after);
      },
    );
  };
}

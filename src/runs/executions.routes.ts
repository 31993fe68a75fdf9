import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { InvalidInput } from '../errors.js';
import { callerOf } from '../identity/credentials.js';
import { limitExecutionStarts } from '../identity/request-limits.js';
import {
  CancelResponse,
  CreatedExecution,
  EventTimesResponse,
  HistoryResponse,
  PostedEvents,
  RerunResponse,
  StatusResponse,
  StreamTokenResponse,
} from '../sdk/schemas/executions.js';
import { executionEventTimes } from './event-times.js';
import { createExecution, executionHistory, executionOf, executionStatus } from './executions.js';
import {
  CreateExecutionBody,
  EventTimesQuery,
  ExecutionParams,
  HistoryQuery,
  PostEventsBody,
  RerunBody,
} from './executions.schemas.js';
import { cancelRun, postClientEvents, rerunExecution } from './run-control.js';
import { signedStreamUrl } from './stream-url.js';

const HISTORY_MAX = 100;

export function idempotencyKeyOf(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  const key = Array.isArray(value) ? value[0] : value;
  if (!key || key.length > 200) throw new InvalidInput('Idempotency-Key must be 1 to 200 characters');
  return key;
}

export function executionRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const user = { auth: 'user' as const };

    app.post(
      '/executions',
      { config: user, schema: { body: CreateExecutionBody, response: { 200: CreatedExecution } } },
      async (request, reply) => {
        await limitExecutionStarts(ctx, request, reply);
        const execution = await createExecution(ctx, callerOf(request), {
          skillSlug: request.body.skill_slug,
          input: request.body.input,
          source: request.body.source,
          interface: request.body.interface,
          files: request.body.files,
          idempotencyKey: idempotencyKeyOf(request.headers['idempotency-key']),
        });
        return {
          id: execution.execution_id,
          skill_slug: execution.skill_slug,
          skill_name: execution.skill_name,
          status: execution.status,
        };
      },
    );

    app.get(
      '/executions/:executionId/stream-token',
      { config: user, schema: { params: ExecutionParams, response: { 200: StreamTokenResponse } } },
      async (request) => {
        const execution = await executionOf(ctx, callerOf(request), request.params.executionId);
        return { sseUrl: signedStreamUrl(ctx, execution.execution_id) };
      },
    );

    app.post(
      '/executions/:executionId/events',
      { config: user, schema: { params: ExecutionParams, body: PostEventsBody, response: { 200: PostedEvents } } },
      async (request, reply) => {
        const beforeStart = () => limitExecutionStarts(ctx, request, reply);
        const { executionId } = request.params;
        return { data: await postClientEvents(ctx, callerOf(request), executionId, request.body.events, beforeStart) };
      },
    );

    app.get(
      '/executions/:executionId/status',
      { config: user, schema: { params: ExecutionParams, response: { 200: StatusResponse } } },
      async (request) => executionStatus(ctx, callerOf(request), request.params.executionId),
    );

    app.get(
      '/executions/:executionId/event-times',
      {
        config: user,
        schema: { params: ExecutionParams, querystring: EventTimesQuery, response: { 200: EventTimesResponse } },
      },
      async (request) =>
        executionEventTimes(ctx, callerOf(request), request.params.executionId, Number(request.query.after ?? 0)),
    );

    app.get(
      '/executions',
      { config: user, schema: { querystring: HistoryQuery, response: { 200: HistoryResponse } } },
      async (request) => {
        const limit = request.query.limit === undefined ? 10 : Number(request.query.limit);
        if (limit < 1 || limit > HISTORY_MAX) throw new InvalidInput(`limit must be from 1 to ${HISTORY_MAX}`);
        const offset = request.query.offset === undefined ? 0 : Number(request.query.offset);
        return executionHistory(ctx, callerOf(request), { ...request.query, limit, offset });
      },
    );

    app.post(
      '/executions/:executionId/rerun',
      { config: user, schema: { params: ExecutionParams, body: RerunBody, response: { 200: RerunResponse } } },
      async (request, reply) => {
        await limitExecutionStarts(ctx, request, reply);
        return rerunExecution(ctx, callerOf(request), request.params.executionId, request.body.input);
      },
    );

    app.post(
      '/executions/:executionId/cancel',
      { config: user, schema: { params: ExecutionParams, response: { 200: CancelResponse } } },
      async (request) => cancelRun(ctx, callerOf(request), request.params.executionId),
    );
  };
}

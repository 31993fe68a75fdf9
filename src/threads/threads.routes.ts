import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { InvalidInput } from '../errors.js';
import { callerOf } from '../identity/credentials.js';
import { decideApproval } from './thread-approvals.js';
import { sendThreadMessage, serveChat, serveThreadSubscription, threadToChat, threadToSubscribe } from './thread-messages.js';
import { agentsOf, listThreads } from './threads.js';
import {
  AgentParams,
  AgentsResponse,
  ApprovalBody,
  ApprovalParams,
  ApprovalResponse,
  ChatBody,
  ResumeHeaders,
  SendMessageBody,
  SentMessage,
  ThreadBody,
  ThreadEventStream,
  ThreadList,
  ThreadListQuery,
} from './threads.schemas.js';

/**
 * Takes the response over from Fastify for a stream, keeping the headers set so far (the
 * rate limiter's). Everything that can fail with an error response happens before this;
 * what fails after it is logged and ends the stream.
 */
function takeOver(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  reply.hijack();
  return headers;
}

const THREADS_PER_PAGE = 20;
const MOST_THREADS_PER_PAGE = 100;

/** Agent threads (DESIGN §13). Each route counts once against the REST limit; a stream, when it opens. */
export function threadRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const user = { auth: 'user' as const };

    const streamFailed = (reply: FastifyReply) => (error: unknown) => {
      ctx.log.error({ err: error }, 'thread stream failed');
      reply.raw.end();
    };

    app.get('/agents', { config: user, schema: { response: { 200: AgentsResponse } } }, async (request) => ({
      agents: await agentsOf(ctx, callerOf(request)),
    }));

    app.get(
      '/agents/:agentId/threads',
      {
        config: { ...user, scope: 'read' as const },
        schema: { params: AgentParams, querystring: ThreadListQuery, response: { 200: ThreadList } },
      },
      async (request) => {
        const limit = request.query.limit === undefined ? THREADS_PER_PAGE : Number(request.query.limit);
        if (limit < 1 || limit > MOST_THREADS_PER_PAGE) {
          throw new InvalidInput(`Ask for 1 to ${MOST_THREADS_PER_PAGE} conversations at a time.`);
        }
        const offset = request.query.offset === undefined ? 0 : Number(request.query.offset);
        const { items, total } = await listThreads(ctx, callerOf(request), request.params.agentId, { limit, offset });
        return { items, total, limit, offset, hasMore: offset + items.length < total };
      },
    );

    app.post(
      '/agents/:agentId/subscribe-thread',
      {
        // Only reads the thread, though it is a POST (as the spec has it).
        config: { ...user, scope: 'read' as const },
        schema: { params: AgentParams, body: ThreadBody, headers: ResumeHeaders, response: { 200: ThreadEventStream } },
      },
      async (request, reply) => {
        const caller = callerOf(request);
        const subscription = await threadToSubscribe(
          ctx,
          caller,
          request.params.agentId,
          request.body,
          request.headers['last-event-id'],
        );
        const headers = takeOver(reply);
        await serveThreadSubscription(ctx, reply.raw, headers, subscription).catch(streamFailed(reply));
      },
    );

    app.post(
      '/agents/:agentId/send-message',
      { config: user, schema: { params: AgentParams, body: SendMessageBody, response: { 202: SentMessage } } },
      async (request, reply) => {
        reply.code(202);
        return sendThreadMessage(ctx, callerOf(request), request.params.agentId, request.body);
      },
    );

    app.post(
      '/chat/:agentId',
      { config: user, schema: { params: AgentParams, body: ChatBody, response: { 200: ThreadEventStream } } },
      async (request, reply) => {
        const caller = callerOf(request);
        const chat = await threadToChat(ctx, caller, request.params.agentId, request.body.threadId);
        const headers = takeOver(reply);
        await serveChat(ctx, caller, reply.raw, headers, chat, request.body.message).catch(streamFailed(reply));
      },
    );

    app.post(
      '/agents/:agentId/threads/:threadId/approvals/:approvalId',
      { config: user, schema: { params: ApprovalParams, body: ApprovalBody, response: { 200: ApprovalResponse } } },
      async (request) => decideApproval(ctx, callerOf(request), request.params, request.body.approved),
    );
  };
}

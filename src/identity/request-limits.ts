import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimited } from '../errors.js';
import type { RateLimitKind } from '../http/route-config.js';
import type { Caller } from '../ports/callers.js';
import type { RateDecision, RateRule } from '../ports/rate-limits.js';
import { callerKey, EXECUTIONS_LIMIT_MESSAGE, type Limiter, refusalOf, rulesOf } from './rate-limits.js';

const REST_LIMIT_MESSAGE = 'Rate limit exceeded; slow down';
const MCP_LIMIT_MESSAGE = 'MCP rate limit exceeded; slow down';

const anonymousRestKey = (address: string) => `rest:ip:${address}`;
const webhookKey = (request: FastifyRequest) => `webhook:ip:${request.ip}`;

/**
 * Each caller's REST key, made once: a caller is the credential cache's object for as long
 * as the credential stays cached, and the same string every request is hashed only once
 * by the limiter's map, where one made anew each time is hashed anew.
 */
const restKeys = new WeakMap<Caller, string>();

/** REST requests count under the key their credential's strategy names, else per IP. */
function restKey(request: FastifyRequest): string {
  const caller = request.caller;
  if (!caller) return anonymousRestKey(request.ip);
  let key = restKeys.get(caller);
  if (key === undefined) {
    key = callerKey('rest', caller);
    restKeys.set(caller, key);
  }
  return key;
}

/** MCP requests have an allowance of their own (SPEC: 60 a minute), apart from REST's. */
function mcpKey(request: FastifyRequest): string {
  return request.caller ? callerKey('mcp', request.caller) : `mcp:ip:${request.ip}`;
}

/**
 * When the window that counted each MCP request as it arrived ends: a batch then refused
 * whole gives that hit back to the same window (limitMcpBatch).
 */
const mcpArrivals = new WeakMap<FastifyRequest, number>();

function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(Math.ceil(decision.resetMs / 1000)),
  };
}

/** On every routed request: the headers go straight onto the reply, with nothing in between. */
function enforce(ctx: Limiter, reply: FastifyReply, key: string, rule: RateRule, message: string): Promise<void> | undefined {
  const decision = ctx.rateLimits.consume(key, rule, ctx.clock.nowMs());
  if (decision instanceof Promise) return decision.then((decided) => applyDecision(reply, decided, message));
  applyDecision(reply, decision, message);
  return undefined;
}

function applyDecision(reply: FastifyReply, decision: RateDecision, message: string): void {
  reply.header('x-ratelimit-limit', decision.limit);
  reply.header('x-ratelimit-remaining', decision.remaining);
  reply.header('x-ratelimit-reset', Math.ceil(decision.resetMs / 1000));
  const refusal = refusalOf(decision, message);
  if (refusal) throw refusal;
}

/**
 * The REST limit for a request answered outside Fastify (an event stream, which carries no
 * credential), counted per client address like any other anonymous request: the headers
 * to send, and the error to throw when the limiter says no.
 */
export async function limitAnonymousRequest(
  ctx: Limiter,
  address: string,
): Promise<{ headers: Record<string, string>; refusal: RateLimited | null }> {
  const decision = await ctx.rateLimits.consume(anonymousRestKey(address), rulesOf(ctx.config).rest, ctx.clock.nowMs());
  return { headers: rateLimitHeaders(decision), refusal: refusalOf(decision, REST_LIMIT_MESSAGE) };
}

/**
 * onRequest: the REST limit, or the activation-creation limit per client IP. Undefined when
 * the limiter decided at once (it throws the refusal then), else a promise of its decision.
 */
export function limitRequest(
  ctx: Limiter,
  request: FastifyRequest,
  reply: FastifyReply,
  kind: RateLimitKind,
): Promise<void> | undefined {
  switch (kind) {
    case 'activation-poll': // counted per code once the body is read
    case 'webhook': // counted once the signature is verified
    case 'static-asset':
    case 'unlimited':
      return undefined;
    case 'mcp':
      return enforceMcpArrival(ctx, request, reply);
    case 'activation-create':
      return enforce(
        ctx,
        reply,
        `activate:ip:${request.ip}`,
        rulesOf(ctx.config).activationCreate,
        'Too many activation requests; wait a few seconds',
      );
    default:
      return enforce(ctx, reply, restKey(request), rulesOf(ctx.config).rest, REST_LIMIT_MESSAGE);
  }
}

/** An MCP request counted as it arrives, before its body is read, as one message. */
function enforceMcpArrival(ctx: Limiter, request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
  const nowMs = ctx.clock.nowMs();
  const decision = ctx.rateLimits.consume(mcpKey(request), rulesOf(ctx.config).mcp, nowMs);
  const settle = (decided: RateDecision) => {
    applyDecision(reply, decided, MCP_LIMIT_MESSAGE);
    mcpArrivals.set(request, nowMs + decided.resetMs);
  };
  if (decision instanceof Promise) return decision.then(settle);
  settle(decision);
  return undefined;
}

/** Why a batch was refused while smaller requests still fit, and what the client can do. */
function batchRefusal(messages: number, remaining: number, retryAfterMs: number): string {
  const wait = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return remaining === 0
    ? `This batch of ${messages} messages needs ${messages} of the MCP allowance and none is left this minute. Wait ${wait} seconds.`
    : `This batch of ${messages} messages needs ${messages} of the MCP allowance and ${remaining} are left this minute. Send at most ${remaining} messages at once, or wait ${wait} seconds.`;
}

/**
 * The messages of an MCP JSON-RPC batch past its first, which was counted with its request
 * before the body was read: a batch counts one per message, in the same window. One the
 * allowance cannot hold whole is refused whole (the 429 with its headers) before any of it
 * runs, and counts nothing: its first message's hit is given back, so a client that sends
 * it again, or a smaller one, still has the whole rest of the minute.
 */
export async function limitMcpBatch(ctx: Limiter, request: FastifyRequest, reply: FastifyReply, messages: number): Promise<void> {
  if (messages <= 1) return;
  const key = mcpKey(request);
  const rule = rulesOf(ctx.config).mcp;
  const nowMs = ctx.clock.nowMs();
  const decision = await ctx.rateLimits.consume(key, rule, nowMs, messages - 1);
  if (decision.allowed) {
    applyDecision(reply, decision, MCP_LIMIT_MESSAGE);
    return;
  }
  const arrival = mcpArrivals.get(request);
  if (arrival === undefined) throw new Error('An MCP batch reached its limit without its request counted on arrival');
  const remaining = await ctx.rateLimits.release(key, rule, nowMs, 1, arrival);
  applyDecision(reply, { ...decision, remaining }, batchRefusal(messages, remaining, decision.retryAfterMs));
}

/**
 * Creating, starting and rerunning executions: 30 a minute per credential, on top of the
 * REST limit. The tighter limit is the one the response's headers then describe.
 */
export async function limitExecutionStarts(ctx: Limiter, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const key = restKey(request).replace(/^rest:/, 'executions:');
  await enforce(ctx, reply, key, rulesOf(ctx.config).executionStarts, EXECUTIONS_LIMIT_MESSAGE);
}

/** About one poll per second per device code, counted by the code's hash. */
export async function limitPoll(ctx: Limiter, reply: FastifyReply, deviceCodeHash: string): Promise<void> {
  await enforce(
    ctx,
    reply,
    `poll:code:${deviceCodeHash}`,
    rulesOf(ctx.config).poll,
    'Polling too fast; wait the interval between polls',
  );
}

/**
 * Payment-provider deliveries per client address, in a window of their own: a provider
 * retries from a handful of addresses, so it must not share the anonymous REST allowance.
 * Called only for a delivery whose signature checked out, so forgeries spend nothing.
 */
export async function limitWebhook(ctx: Limiter, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await enforce(ctx, reply, webhookKey(request), rulesOf(ctx.config).webhook, 'Too many webhook deliveries; retry later');
}

/**
 * For error responses: one that never reached a limiter (a poll body that failed to parse
 * or validate, a webhook delivery with a bad signature) still carries the headers, read
 * without counting from the window the route is counted in: the webhook's for the webhook,
 * the MCP window for MCP, else the REST window of the caller or client IP.
 */
export async function ensureRateLimitHeaders(ctx: Limiter, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (reply.hasHeader('x-ratelimit-limit')) return;
  const rules = rulesOf(ctx.config);
  const kind = request.routeConfig?.rateLimit;
  const [key, rule] =
    kind === 'webhook'
      ? [webhookKey(request), rules.webhook]
      : kind === 'mcp'
        ? [mcpKey(request), rules.mcp]
        : [restKey(request), rules.rest];
  const decision = await ctx.rateLimits.peek(key, rule, ctx.clock.nowMs());
  reply.headers(rateLimitHeaders(decision));
}

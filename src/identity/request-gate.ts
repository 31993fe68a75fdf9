import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { Forbidden, InvalidInput, Unauthorized } from '../errors.js';
import { replySink, writeError } from '../http/error-writer.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';
import type { RouteConfig } from '../http/route-config.js';
import { installUnrouted } from '../http/unrouted.js';
import { authChallenge } from './auth-challenge.js';
import { strategyOf } from './credential-strategies.js';
import { resolveCaller } from './credentials.js';
import { requireCallerScope, scopeForMethod } from './oauth-scopes.js';
import { ensureRateLimitHeaders, limitRequest } from './request-limits.js';

type GateContext = Pick<AppContext, 'db' | 'clock' | 'config' | 'credentials' | 'rateLimits'>;

/**
 * Every request passes the same gate, in this order: read the credential, count the
 * request against its limiter, then refuse it if the route needs a credential it lacks.
 */
export function installPlumbing(app: FastifyInstance, ctx: GateContext): void {
  app.decorateRequest('routeConfig', null);
  app.decorateRequest('caller', null);
  app.decorateRequest('credentialError', null);

  // POST /activate is sent with Content-Type: application/json and no body at all.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text === '') return done(null, undefined);
    parseJson(request, text, (error, value) => done(error ? new InvalidInput('Request body is not valid JSON') : null, value));
  });

  // A callback hook, not an async one: with a cached credential and an in-memory limiter,
  // the cheapest requests pass without a promise.
  app.addHook('onRequest', (request, reply, done) => {
    let pending: Promise<void> | undefined;
    try {
      pending = gate(ctx, request, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (pending) pending.then(() => done(), done);
    else done();
  });

  app.setErrorHandler(async (error, request, reply) => {
    await ensureRateLimitHeaders(ctx, request, reply);
    const config = request.routeConfig;
    const challenge: Record<string, string> =
      error instanceof Unauthorized ? { 'www-authenticate': authChallenge(request, error, ctx.config.publicUrl) } : {};
    const rendered = writeError(replySink(reply), error, config?.errorFamily ?? 'standard', challenge);
    if (rendered.unexpected) request.log.error({ err: error }, 'request failed');
    return reply;
  });

  installUnrouted(app);
}

/** Whether the route takes the request: read its credential, count it, then judge both. */
function gate(ctx: GateContext, request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
  const config = request.routeOptions.config;
  request.routeConfig = config;
  // First, so that every answer carries it, refusals by the gate included.
  reply.header(REQUEST_ID_HEADER, request.id);
  const resolving = config.auth === 'public' ? undefined : resolveCaller(ctx, request);
  if (resolving) return resolving.then(() => limitThenJudge(ctx, request, reply, config));
  return limitThenJudge(ctx, request, reply, config);
}

function limitThenJudge(
  ctx: GateContext,
  request: FastifyRequest,
  reply: FastifyReply,
  config: RouteConfig,
): Promise<void> | undefined {
  const limiting = limitRequest(ctx, request, reply, config.rateLimit ?? 'rest');
  if (limiting) return limiting.then(() => judge(ctx, request, config));
  judge(ctx, request, config);
  return undefined;
}

/** Refuses a request the route's policy does not let in. */
function judge(ctx: GateContext, request: FastifyRequest, config: RouteConfig): void {
  const policy = config.auth;
  if (policy !== 'user' && policy !== 'session') return;
  if (request.credentialError) throw request.credentialError;
  const strategy = request.caller && strategyOf(request.caller.kind);
  if (policy === 'session' && !strategy?.signedIn) {
    throw new Forbidden(`This endpoint needs a signed-in person (x-auth-token), not ${strategy?.name ?? 'an API key'}`);
  }
  const needed = config.scope ?? scopeForMethod(request.method);
  requireCallerScope(request.caller, needed, ctx.config.oauthEnforceScopes, strategy?.name);
}

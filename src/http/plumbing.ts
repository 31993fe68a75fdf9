import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { Forbidden, InvalidInput, NotFound, Unauthorized } from '../errors.js';
import { strategyOf } from '../identity/credential-strategies.js';
import { requireCallerScope, scopeForMethod } from '../oauth/scopes.js';
import { authChallenge } from './auth-challenge.js';
import { resolveCaller } from './credentials.js';
import { replySink, writeError } from './error-writer.js';
import { ensureRateLimitHeaders, limitRequest } from './rate-limit.js';

/**
 * Every request passes the same gate, in this order: read the credential, count the
 * request against its limiter, then refuse it if the route needs a credential it lacks.
 */
export function installPlumbing(
  app: FastifyInstance,
  ctx: Pick<AppContext, 'db' | 'clock' | 'config' | 'credentials' | 'rateLimits'>,
): void {
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

  app.addHook('onRequest', async (request, reply) => {
    const { auth: policy, rateLimit } = request.routeOptions.config;
    if (policy !== 'public') await resolveCaller(ctx, request);
    await limitRequest(ctx, request, reply, rateLimit ?? 'rest');
    if (policy !== 'user' && policy !== 'session') return;
    if (request.credentialError) throw request.credentialError;
    const strategy = request.caller && strategyOf(request.caller.kind);
    if (policy === 'session' && !strategy?.signedIn) {
      throw new Forbidden(`This endpoint needs a signed-in person (x-auth-token), not ${strategy?.name ?? 'an API key'}`);
    }
    const needed = request.routeOptions.config.scope ?? scopeForMethod(request.method);
    requireCallerScope(request.caller, needed, ctx.config.oauthEnforceScopes, strategy?.name);
  });

  app.setErrorHandler(async (error, request, reply) => {
    await ensureRateLimitHeaders(ctx, request, reply);
    const config = request.routeOptions.config;
    const challenge: Record<string, string> =
      error instanceof Unauthorized ? { 'www-authenticate': authChallenge(request, error, ctx.config.publicUrl) } : {};
    const rendered = writeError(replySink(reply), error, config?.errorFamily ?? 'standard', challenge);
    if (rendered.unexpected) request.log.error({ err: error }, 'request failed');
    return reply;
  });

  // People see this message: it says what happened without quoting the method and path back.
  app.setNotFoundHandler(async () => {
    throw new NotFound('There is nothing at this address. Check the link, or the address the client was configured with.');
  });
}

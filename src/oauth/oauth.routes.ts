import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { AppContext } from '../context.js';
import { PayloadTooLarge } from '../errors.js';
import { pathOf } from '../http/front-routes.js';
import { protectedResourceMetadata } from '../identity/oauth-resources.js';
import { announceRevocation } from '../realtime/control-messages.js';

/** oidc-provider's own paths under ours; everything else on the server stays Fastify's. */
const PROVIDER_ROUTES: readonly { method: 'GET' | 'POST' | ('GET' | 'POST')[]; url: string }[] = [
  { method: ['GET', 'POST'], url: '/oauth/authorize' },
  // Where the authorization resumes once the sign-in and consent pages are done.
  { method: 'GET', url: '/oauth/authorize/:uid' },
  { method: 'POST', url: '/oauth/token' },
  { method: 'POST', url: '/oauth/revoke' },
  { method: 'POST', url: '/oauth/register' },
  // The registration_client_uri each registration hands out (RFC 7592 read, with the
  // registration access token); update and delete are not offered.
  { method: 'GET', url: '/oauth/register/:clientId' },
  { method: 'GET', url: '/oauth/jwks' },
  { method: 'GET', url: '/.well-known/openid-configuration' },
];

/** oidc-provider's own limit on the bodies it reads. */
const TOKEN_BODY_LIMIT = 56 * 1024;

/**
 * The SPEC shows the token request as a JSON body; oidc-provider reads only the standard
 * form. A JSON object of strings is handed on as the same fields in form encoding.
 */
function formFromJson(text: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value === 'string') form.append(name, value);
  }
  return form.toString();
}

/**
 * The OAuth 2.1 authorization server (DESIGN §11). oidc-provider is a Koa app: its paths
 * are Fastify routes that hand the raw request to it, so the rate limiter and the
 * 404 handler stay ours while every OAuth answer, errors included, is oidc-provider's.
 */
export function oauthRoutes(ctx: AppContext, provider: Provider): FastifyPluginAsync {
  return async (app) => {
    provider.on('server_error', (_koa, error) => ctx.log.error({ err: error }, 'OAuth request failed'));
    // A revocation closes the control-plane sockets opened with the grant's tokens, as a
    // revoked API key's are (the grant is their credential id).
    provider.on('access_token.destroyed', (token) => {
      if (token.grantId) announceRevocation(ctx, token.grantId);
    });
    provider.on('grant.revoked', (_koa, grantId) => announceRevocation(ctx, grantId));
    const handle = provider.callback();

    // oidc-provider reads request bodies itself (with its own size limit), so Fastify leaves
    // them unread, except a JSON token request, which is read here to be handed on as a form.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    app.addContentTypeParser('application/json', async (request: FastifyRequest, payload: AsyncIterable<Buffer>) => {
      if (pathOf(request.url) !== '/oauth/token') return undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of payload) {
        size += chunk.length;
        if (size > TOKEN_BODY_LIMIT) throw new PayloadTooLarge(`A token request may be at most ${TOKEN_BODY_LIMIT} bytes`);
        chunks.push(chunk);
      }
      return Buffer.concat(chunks).toString('utf8');
    });

    const serve = async (request: FastifyRequest, reply: FastifyReply, url?: string) => {
      const raw = request.raw;
      if (typeof request.body === 'string') {
        const form = formFromJson(request.body);
        // oidc-provider's own parser answers a body it cannot read as a form (invalid_request).
        if (form !== null) raw.headers['content-type'] = 'application/x-www-form-urlencoded';
        Object.assign(raw, { body: form ?? request.body });
      }
      if (url) raw.url = url;
      // The headers set so far (the rate limiter's) would be lost with the reply Fastify
      // no longer writes; oidc-provider's own headers are set after these.
      for (const [name, value] of Object.entries(reply.getHeaders())) {
        if (value !== undefined) reply.raw.setHeader(name, typeof value === 'number' ? String(value) : value);
      }
      reply.hijack();
      await handle(raw, reply.raw);
    };

    const config = { auth: 'public' as const };
    for (const route of PROVIDER_ROUTES) {
      app.route({ ...route, config, schema: { hide: true }, handler: (request, reply) => serve(request, reply) });
    }
    // RFC 8414's document is oidc-provider's discovery document, served under its name.
    app.get('/.well-known/oauth-authorization-server', { config, schema: { hide: true } }, (request, reply) =>
      serve(request, reply, '/.well-known/openid-configuration'),
    );
    // RFC 9728: one document per resource, MCP's beside its path and the REST API's at the root.
    app.get('/.well-known/oauth-protected-resource/mcp', { config, schema: { hide: true } }, async () =>
      protectedResourceMetadata(ctx.config.publicUrl, 'mcp'),
    );
    app.get('/.well-known/oauth-protected-resource', { config, schema: { hide: true } }, async () =>
      protectedResourceMetadata(ctx.config.publicUrl, 'api'),
    );
  };
}

import { type AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { Forbidden } from '../errors.js';
import { callerOf } from '../identity/credentials.js';
import { limitMcpBatch } from '../identity/request-limits.js';
import type { Caller } from '../ports/callers.js';
import { originAllowed, requireMcpAccess } from './access.js';
import { BATCH_REFUSAL, batchAllowed, batchOf } from './batches.js';
import { mcpBodyLimit } from './inline-files.js';
import { mcpServerFor } from './tools.js';

/** The request as the SDK's web-standard handler takes it, with the body text Fastify read. */
function webRequest(ctx: AppContext, request: FastifyRequest, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    for (const each of Array.isArray(value) ? value : [value]) headers.append(name, each);
  }
  const body = typeof request.body === 'string' && request.method !== 'GET' && request.method !== 'HEAD' ? request.body : null;
  return new Request(new URL(request.url, ctx.config.publicUrl), { method: request.method, headers, body, signal });
}

/**
 * MCP over Streamable HTTP at `/mcp` and `/mcp/` (DESIGN §10), stateless: each request is
 * served by a server built for its caller, through the SDK's `createMcpHandler`, which
 * speaks the 2026-07-28 revision and falls back to stateless serving for 2025 clients.
 *
 * The gate is ours, as on every route: the credential (an API key, in `x-api-key` or as a
 * bearer token), the MCP window of the rate limiter, the 401 that points at OAuth
 * discovery, the Origin check and the basedmode check, all answered in our envelopes.
 * What is inside the JSON-RPC exchange, errors included, is the SDK's.
 */
export function mcpRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    // The factory has only what the handler passes through; the caller rides in on the
    // authInfo object made for its request.
    const callers = new WeakMap<AuthInfo, Caller>();
    // Larger than other routes' bodies: run_skill and upload_file carry files inline.
    const bodyLimit = mcpBodyLimit(ctx.config.bodyLimitBytes);
    const handler = createMcpHandler(
      ({ authInfo }) => {
        const caller = authInfo && callers.get(authInfo);
        if (!caller) throw new Error('An MCP request reached the SDK without a caller');
        return mcpServerFor(ctx, caller);
      },
      // Requests it refuses (bad JSON-RPC, a protocol version it does not serve) are
      // answered to the client; they are not ours to log loudly.
      { onerror: (error) => ctx.log.debug({ err: error }, 'MCP request refused'), maxRequestBodySize: bodyLimit },
    );
    // Exchanges in flight end when the server closes: a client waiting on a long run would
    // otherwise hold its connection, and so the close, until the run ended. Their runs are
    // stopped with every other run once the server has closed.
    const exchanges = new Set<AbortController>();
    app.addHook('preClose', async () => {
      for (const exchange of exchanges) exchange.abort();
      await handler.close();
    });

    // The SDK reads the body itself, so a body that is not JSON, or not JSON-RPC, or has
    // the wrong content type, is answered the way MCP clients expect (a JSON-RPC error
    // with the SDK's status) rather than as a REST 400.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

    const serve = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!originAllowed(ctx.config.publicUrl, request.headers.origin)) {
        throw new Forbidden('Requests from this Origin may not use MCP on this server');
      }
      const caller = callerOf(request);
      requireMcpAccess(ctx, caller);
      // A batch is refused on revisions without batches, and otherwise counts a request per
      // message; either way before any of it runs.
      const batch = batchOf(request.body);
      if (batch) {
        if (!batchAllowed(request.headers['mcp-protocol-version'], batch)) return reply.code(400).send(BATCH_REFUSAL);
        await limitMcpBatch(ctx, request, reply, batch.length);
      }
      // Who is calling is settled above; the SDK only carries this through. The secret
      // itself stays out of it.
      const authInfo: AuthInfo = { token: '', clientId: caller.credentialId, scopes: [] };
      callers.set(authInfo, caller);
      // A client that goes away mid-call ends the exchange (its run keeps going).
      const exchange = new AbortController();
      exchanges.add(exchange);
      reply.raw.on('close', () => {
        exchanges.delete(exchange);
        exchange.abort();
      });
      const response = await handler.fetch(webRequest(ctx, request, exchange.signal), { authInfo });
      return reply.send(response);
    };

    const config = {
      auth: 'user' as const,
      rateLimit: 'mcp' as const,
      // Every MCP call is a POST: reading is enough to reach the tools, and the tools that
      // change something ask for write themselves.
      scope: 'read' as const,
      bearer: ['api_key' as const, 'oauth' as const],
      // Also what the 401's challenge points at (auth-challenge.ts): clients find the
      // authorization server from this resource's metadata (RFC 9728).
      oauthResource: 'mcp' as const,
    };
    for (const url of ['/mcp', '/mcp/']) {
      app.route({ method: ['GET', 'POST', 'DELETE'], url, config, bodyLimit, schema: { hide: true }, handler: serve });
    }
  };
}

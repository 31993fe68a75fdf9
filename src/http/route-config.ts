import type { FastifyRequest } from 'fastify';

/**
 * A route's policy as the HTTP layer knows it; who is calling and what a credential must
 * carry are identity's (identity/route-access.ts).
 *
 * Who may call a route:
 * - public: no credential is read at all;
 * - user: any credential (API key or auth token);
 * - session: a person's auth token only; an API key gets 403.
 * Routes without a policy (the 404 handler) read a credential only to count the request.
 */
export type AuthPolicy = 'public' | 'user' | 'session';

/**
 * Which limiter counts a route's requests, and so which one its headers describe. The
 * poll route counts per device code in its handler, once the code is known; the payment
 * webhook counts per client address in its handler, once the signature is verified. MCP
 * counts per credential in a window of its own. The web app's own static files are not
 * counted: they are cheap, cached, and a page load fetches several at once. Health probes
 * (`unlimited`) are not counted either: a probe refused for its rate would take a healthy
 * node out of service.
 */
export type RateLimitKind = 'rest' | 'activation-create' | 'activation-poll' | 'webhook' | 'mcp' | 'static-asset' | 'unlimited';

/** The error body a route family speaks: the usual envelope, or the artifacts' older shape. */
export type ErrorFamily = 'standard' | 'artifact';

/** A route's config as Fastify keeps it: ours, and its own method and URL pattern. */
export type RouteConfig = FastifyRequest['routeOptions']['config'];

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthPolicy;
    rateLimit?: RateLimitKind;
    errorFamily?: ErrorFamily;
    /** The `WWW-Authenticate` value its 401s carry (MCP's points clients at OAuth discovery). */
    authChallenge?: string;
  }
  interface FastifyRequest {
    /**
     * The route's config, read once by the gate (identity/request-gate.ts): Fastify's `routeOptions`
     * builds a new object on every read.
     */
    routeConfig: RouteConfig | null;
  }
}

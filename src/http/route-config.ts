import type { AppError } from '../errors.js';
import type { Caller } from '../identity/callers.js';

/**
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
 * webhook counts per client address in its handler, once the signature is verified.
 */
export type RateLimitKind = 'rest' | 'activation-create' | 'activation-poll' | 'webhook';

/** The error body a route family speaks: the usual envelope, or the artifacts' older shape. */
export type ErrorFamily = 'standard' | 'artifact';

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: AuthPolicy;
    rateLimit?: RateLimitKind;
    errorFamily?: ErrorFamily;
  }
  interface FastifyRequest {
    caller: Caller | null;
    /** Why the presented credential was refused; thrown only if the route needs one. */
    credentialError: AppError | null;
  }
}

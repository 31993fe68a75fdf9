import type { AppError } from '../errors.js';
import type { Caller, CredentialKind } from '../ports/callers.js';
import type { OAuthResource } from './oauth-resources.js';
import type { OAuthScope } from './oauth-scopes.js';

/** What a route asks of a credential, and who the gate (request-gate.ts) found calling. */
declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The kinds of credential the route takes as `Authorization: Bearer <token>`; OAuth
     * access tokens only when absent (credentials.ts).
     */
    bearer?: readonly CredentialKind[];
    /** The resource (RFC 8707 audience) an OAuth access token must be for here; the REST API when absent. */
    oauthResource?: OAuthResource;
    /** The scope a scoped caller needs here, when not the method's (GET/HEAD read, else write). */
    scope?: OAuthScope;
  }
  interface FastifyRequest {
    caller: Caller | null;
    /** Why the presented credential was refused; thrown only if the route needs one. */
    credentialError: AppError | null;
  }
}

import type { AppContext } from '../context.js';
import type { Caller, CredentialKind } from '../ports/callers.js';
import { callerFromApiKey, isApiKeyLive, looksLikeApiKey } from './api-keys.js';
import { callerFromAuthToken, isAuthTokenLive } from './auth-tokens.js';
import type { CredentialRef } from './callers.js';
import { callerFromAccessToken, isGrantLive } from './oauth-access-tokens.js';
import type { OAuthResource } from './oauth-resources.js';

/**
 * One kind of credential, and everything the rest of the service asks about it. A new
 * kind is one more entry in STRATEGIES; nothing else switches on `Caller.kind`.
 */
export interface CredentialStrategy {
  kind: CredentialKind;
  /** The request header of its own it is presented in; absent for one sent only as a bearer token. */
  header?: string;
  /**
   * Whether a token sent as `Authorization: Bearer <token>` is this kind, on a route that
   * takes this kind as a bearer token (route config `bearer`). Absent: never sent that way.
   */
  claimsBearer?: (token: string) => boolean;
  /** The 401 message for a value in that header that names no live credential. */
  invalidMessage: string;
  /**
   * The caller a presented secret stands for; null when it names no live credential.
   * `resource` is what the route serves (its config's `oauthResource`), for credentials
   * bound to one audience. A cached credential is answered at once, without a promise.
   */
  resolve(
    ctx: Pick<AppContext, 'db' | 'clock' | 'credentials' | 'config'>,
    secret: string,
    resource: OAuthResource,
  ): Caller | null | Promise<Caller | null>;
  /** Whether the credential still stands, and still reaches the workspace it was bound to. */
  isLive(ctx: Pick<AppContext, 'db' | 'clock'>, ref: CredentialRef): Promise<boolean>;
  /** What its requests are counted under, within each limiter's prefix. */
  rateLimitKey(caller: Caller): string;
  /** Whether it stands for a person who signed in (what the `session` route policy asks for). */
  signedIn: boolean;
  /** What it is called in the 403 of a `session` route, when it is not `signedIn`. */
  name: string;
  /**
   * For a credential bound to the workspace it was made in, why it may not act in
   * (`x-workspace-id`) or switch to another; null for one that follows its person.
   */
  boundToWorkspace: { actElsewhere: string; switchAway: string } | null;
}

const API_KEY: CredentialStrategy = {
  kind: 'api_key',
  header: 'x-api-key',
  // MCP clients are often configured with a bearer token only (SPEC: OAuth's header).
  claimsBearer: looksLikeApiKey,
  invalidMessage: 'Invalid API key',
  resolve: callerFromApiKey,
  isLive: isApiKeyLive,
  // Each key has an allowance of its own, so one busy integration does not starve another.
  rateLimitKey: (caller) => `key:${caller.credentialId}`,
  signedIn: false,
  name: 'an API key',
  boundToWorkspace: {
    actElsewhere: 'This API key is bound to another workspace',
    switchAway: 'An API key stays bound to the workspace it was created in',
  },
};

const SESSION: CredentialStrategy = {
  kind: 'session',
  header: 'x-auth-token',
  invalidMessage: 'Invalid auth token',
  resolve: callerFromAuthToken,
  isLive: isAuthTokenLive,
  // A person's sessions share one allowance: signing in again does not buy a fresh one.
  rateLimitKey: (caller) => `user:${caller.userId}`,
  signedIn: true,
  name: 'an auth token',
  boundToWorkspace: null,
};

const OAUTH: CredentialStrategy = {
  kind: 'oauth',
  // Every bearer token that is not one of our API keys is taken for an access token.
  claimsBearer: (token) => !looksLikeApiKey(token),
  // The message /api/v1 has always given for a bad Authorization header.
  invalidMessage: 'Invalid auth token',
  // Never cached: a revoked token must stop working at once.
  resolve: (ctx, token, resource) => callerFromAccessToken(ctx, token, resource),
  isLive: isGrantLive,
  // One allowance per grant (one client, one person), like an API key's.
  rateLimitKey: (caller) => `oauth:${caller.credentialId}`,
  // A third-party client acts for the person but is not them: session-only routes stay closed.
  signedIn: false,
  name: 'an OAuth access token',
  boundToWorkspace: {
    actElsewhere: 'This access token is bound to another workspace',
    switchAway: 'An access token stays bound to the workspace chosen at consent',
  },
};

/**
 * In the order their headers are read: a request carrying several is judged by the first.
 * The OAuth strategy has no header of its own: it is read only as a bearer token.
 */
export const CREDENTIAL_STRATEGIES: readonly CredentialStrategy[] = [API_KEY, SESSION, OAUTH];

const BY_KIND: Record<CredentialKind, CredentialStrategy> = { api_key: API_KEY, session: SESSION, oauth: OAUTH };

/**
 * Headers that carry a credential only some strategies read as a bearer token: a route
 * takes the kinds its config's `bearer` names (OAuth access tokens on every route by
 * default; MCP adds API keys). Anything else there is refused as an invalid token rather
 * than ignored, so a client never gets a public answer by mistake.
 */
export const UNCLAIMED_CREDENTIAL_HEADERS: readonly { header: string; invalidMessage: string }[] = [
  { header: 'authorization', invalidMessage: 'Invalid auth token' },
];

export function strategyOf(kind: CredentialKind): CredentialStrategy {
  return BY_KIND[kind];
}

export function isCredentialKind(value: unknown): value is CredentialKind {
  return typeof value === 'string' && Object.hasOwn(BY_KIND, value);
}

/** Whether a credential still stands, and still reaches the workspace it was bound to. */
export function isCredentialLive(ctx: Pick<AppContext, 'db' | 'clock'>, ref: CredentialRef): Promise<boolean> {
  return strategyOf(ref.kind).isLive(ctx, ref);
}

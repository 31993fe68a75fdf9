import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError, Forbidden, Unauthorized } from '../errors.js';
import type { Caller, CredentialKind } from '../ports/callers.js';
import {
  CREDENTIAL_STRATEGIES,
  type CredentialStrategy,
  strategyOf,
  UNCLAIMED_CREDENTIAL_HEADERS,
} from './credential-strategies.js';
import { APP_REQUEST_HEADER, cookieRequestAllowed, sessionCookieOf } from './session-cookie.js';
import { inWorkspace } from './workspaces.js';

type CredentialReader = Pick<AppContext, 'db' | 'clock' | 'credentials' | 'config'>;

/** What a route takes as `Authorization: Bearer` when its config does not say: OAuth access tokens. */
const DEFAULT_BEARER: readonly CredentialKind[] = ['oauth'];

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  const text = Array.isArray(value) ? value.join(',') : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

const BEARER = /^Bearer +(\S+)$/i;

/** The strategy that reads an `Authorization: Bearer` token on this route, if any does. */
function bearerStrategy(request: FastifyRequest, authorization: string): { strategy: CredentialStrategy; token: string } | null {
  const accepted = request.routeConfig?.bearer ?? DEFAULT_BEARER;
  const token = BEARER.exec(authorization)?.[1];
  if (!token) return null;
  const strategy = CREDENTIAL_STRATEGIES.find((each) => accepted.includes(each.kind) && each.claimsBearer?.(token));
  return strategy ? { strategy, token } : null;
}

/** A caller found at once (a cached credential) or, after a database read, in a promise. */
type Found = Caller | Promise<Caller>;

function resolveWith(ctx: CredentialReader, request: FastifyRequest, strategy: CredentialStrategy, secret: string): Found {
  const resolved = strategy.resolve(ctx, secret, request.routeConfig?.oauthResource ?? 'api');
  return resolved instanceof Promise ? resolved.then((caller) => known(caller, strategy)) : known(resolved, strategy);
}

function known(caller: Caller | null, strategy: CredentialStrategy): Caller {
  if (!caller) throw new Unauthorized(strategy.invalidMessage);
  return caller;
}

/**
 * Who the headers say is calling: the first header a credential strategy reads decides,
 * then a bearer token the route takes, then a header no strategy claims (refused), and
 * last the web app's session cookie.
 */
function callerFromHeaders(ctx: CredentialReader, request: FastifyRequest): Found {
  for (const strategy of CREDENTIAL_STRATEGIES) {
    const secret = strategy.header === undefined ? undefined : header(request, strategy.header);
    if (secret !== undefined) return resolveWith(ctx, request, strategy, secret);
  }
  const authorization = header(request, 'authorization');
  const bearer = authorization === undefined ? null : bearerStrategy(request, authorization);
  if (bearer) return resolveWith(ctx, request, bearer.strategy, bearer.token);
  for (const unclaimed of UNCLAIMED_CREDENTIAL_HEADERS) {
    if (header(request, unclaimed.header) !== undefined) throw new Unauthorized(unclaimed.invalidMessage);
  }
  const cookie = sessionCookieOf(request);
  if (cookie !== undefined) {
    if (!cookieRequestAllowed(request)) {
      throw new Forbidden(`A request signed in by the app's cookie must carry the ${APP_REQUEST_HEADER} header`);
    }
    return resolveWith(ctx, request, strategyOf('session'), cookie);
  }
  throw new Unauthorized('Missing auth token');
}

/** A refused credential is kept for the route to judge; anything else is the server's failure. */
function refuse(request: FastifyRequest, error: unknown): void {
  if (!(error instanceof AppError)) throw error;
  request.credentialError = error;
}

function actAs(ctx: CredentialReader, request: FastifyRequest, caller: Caller): Promise<void> | undefined {
  request.caller = caller;
  const workspaceId = header(request, 'x-workspace-id');
  if (workspaceId === undefined) return undefined;
  return inWorkspace(ctx, caller, workspaceId).then(
    (acting) => {
      request.caller = acting;
    },
    (error: unknown) => refuse(request, error),
  );
}

/**
 * Fills request.caller (or request.credentialError) from the headers. Never throws for a
 * bad credential: whether that matters depends on the route, and the request must still be
 * counted by the rate limiter first. Undefined when done at once (a cached credential, no
 * workspace switch), else a promise of being done.
 */
export function resolveCaller(ctx: CredentialReader, request: FastifyRequest): Promise<void> | undefined {
  let found: Found;
  try {
    found = callerFromHeaders(ctx, request);
  } catch (error) {
    refuse(request, error);
    return undefined;
  }
  if (!(found instanceof Promise)) return actAs(ctx, request, found);
  return found.then(
    (caller) => actAs(ctx, request, caller),
    (error: unknown) => refuse(request, error),
  );
}

/**
 * Whether the credential this request was refused for is an `Authorization: Bearer` token:
 * none of the strategies' own headers came first, and the header holds the Bearer scheme.
 * A request that sent no credential, another scheme, or a bad API key or auth token was
 * not refused a bearer token (RFC 6750 section 3.1 gives those no error code).
 */
export function refusedBearerToken(request: FastifyRequest): boolean {
  if (!request.credentialError) return false;
  if (CREDENTIAL_STRATEGIES.some((strategy) => strategy.header && header(request, strategy.header) !== undefined)) return false;
  const authorization = header(request, 'authorization');
  return authorization !== undefined && BEARER.test(authorization);
}

/** The caller of a route whose policy guaranteed one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Unauthorized('Missing auth token');
  return request.caller;
}

import { Forbidden } from '../errors.js';

export type OAuthScope = 'read' | 'write' | 'admin';

/** What each scope includes: write reads too, admin is the whole account (SPEC, Authentication 6). */
const INCLUDES: Record<OAuthScope, readonly OAuthScope[]> = {
  read: ['read'],
  write: ['read', 'write'],
  admin: ['read', 'write', 'admin'],
};

/** The scope a request needs when its route names none: reading for GET and HEAD, writing otherwise. */
export function scopeForMethod(method: string): OAuthScope {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

export function isOAuthScope(scope: string): scope is OAuthScope {
  return Object.hasOwn(INCLUDES, scope);
}

/** What each scope lets a client do, in the words the consent pages show. */
export const SCOPE_MEANINGS: Record<OAuthScope, string> = {
  read: 'read skills, artifacts and executions',
  write: 'run skills and manage the library',
  admin: 'full access to your account',
};

/** Whether a set of scopes includes one. */
export function scopesCover(granted: readonly string[], needed: OAuthScope): boolean {
  return granted.some((scope) => isOAuthScope(scope) && INCLUDES[scope].includes(needed));
}

/**
 * Refuses a request the scopes do not cover. OAuth tokens are checked only with
 * OAUTH_ENFORCE_SCOPES on (otherwise scopes are recorded and a token has the person's full
 * access, as the SPEC says); an API key narrowed by scoped consent always is.
 * `holder` is the credential's name as the strategies give it ("an API key", "an OAuth
 * access token"); the message says "This API key" or, as it always has, "This access token".
 */
export function requireScope(granted: readonly string[], needed: OAuthScope, holder = 'an access token'): void {
  if (scopesCover(granted, needed)) return;
  throw new Forbidden(`${holder.replace(/^an? (OAuth )?/, 'This ')} does not have the ${needed} scope`);
}

/**
 * The scope check for one caller: a key its owner narrowed is always held to its scopes, an
 * OAuth token only with OAUTH_ENFORCE_SCOPES on (`enforceTokens`); other callers have their
 * person's full access.
 */
export function requireCallerScope(
  caller: { scopes?: readonly string[]; scopesEnforced?: boolean } | null | undefined,
  needed: OAuthScope,
  enforceTokens: boolean,
  holder?: string,
): void {
  const scopes = caller?.scopes;
  if (scopes && (enforceTokens || caller?.scopesEnforced)) requireScope(scopes, needed, holder);
}

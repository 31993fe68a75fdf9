import type { AppContext } from '../context.js';
import { callerFromApiKey, isApiKeyLive } from './api-keys.js';
import { callerFromAuthToken, isAuthTokenLive } from './auth-tokens.js';
import type { Caller, CredentialKind, CredentialRef } from './callers.js';

/**
 * One kind of credential, and everything the rest of the service asks about it. A new
 * kind (an OAuth access token next) is one more entry in STRATEGIES; nothing else
 * switches on `Caller.kind`.
 */
export interface CredentialStrategy {
  kind: CredentialKind;
  /** The request header it is presented in. */
  header: string;
  /** The 401 message for a value in that header that names no live credential. */
  invalidMessage: string;
  /** The caller a presented secret stands for; null when it names no live credential. */
  resolve(ctx: Pick<AppContext, 'db' | 'clock' | 'credentials'>, secret: string): Promise<Caller | null>;
  /** Whether the credential still stands, and still reaches the workspace it was bound to. */
  isLive(ctx: Pick<AppContext, 'db' | 'clock'>, ref: CredentialRef): Promise<boolean>;
  /** What its requests are counted under, within each limiter's prefix. */
  rateLimitKey(caller: Caller): string;
  /** Whether it stands for a person who signed in (what the `session` route policy asks for). */
  signedIn: boolean;
  /**
   * For a credential bound to the workspace it was made in, why it may not act in
   * (`x-workspace-id`) or switch to another; null for one that follows its person.
   */
  boundToWorkspace: { actElsewhere: string; switchAway: string } | null;
}

const API_KEY: CredentialStrategy = {
  kind: 'api_key',
  header: 'x-api-key',
  invalidMessage: 'Invalid API key',
  resolve: callerFromApiKey,
  isLive: isApiKeyLive,
  // Each key has an allowance of its own, so one busy integration does not starve another.
  rateLimitKey: (caller) => `key:${caller.credentialId}`,
  signedIn: false,
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
  boundToWorkspace: null,
};

/** In the order their headers are read: a request carrying several is judged by the first. */
export const CREDENTIAL_STRATEGIES: readonly CredentialStrategy[] = [API_KEY, SESSION];

const BY_KIND: Record<CredentialKind, CredentialStrategy> = { api_key: API_KEY, session: SESSION };

/**
 * Headers that carry a credential no strategy reads yet: `Authorization: Bearer` is kept
 * for OAuth access tokens. Until a strategy claims it, anything there is refused as an
 * invalid token rather than ignored, so a client never gets a public answer by mistake.
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

import type { WorkspaceRole } from '../db/tables-identity.js';

/*
 * Who is calling, as every feature reads it: identity/ resolves callers from credentials
 * (identity/credential-strategies.ts) and caches them.
 */

/** The credential kinds a strategy exists for (identity/credential-strategies.ts). */
export type CredentialKind = 'session' | 'api_key' | 'oauth';

/** What a user's subscription mode is computed from (identity/subscription-mode.ts). */
export interface BillingStanding {
  subscriptionExpiresAt: string | null;
  siteLicenseUntil: string | null;
  hasByok: boolean;
}

/** Who is calling, through which credential, and in which workspace. */
export interface Caller {
  kind: CredentialKind;
  credentialId: string;
  userId: string;
  email: string;
  isAdmin: boolean;
  userCreatedAt: string;
  personalWorkspaceId: string;
  workspaceId: string;
  workspaceName: string | null;
  workspacePersonal: boolean;
  role: WorkspaceRole;
  /** What the user's subscription mode is computed from, as of when the credential was read. */
  billing: BillingStanding;
  /** The scopes an OAuth access token was granted (read, write, admin); absent for other credentials. */
  scopes?: readonly string[];
  /** Whether `scopes` limit the caller even with OAUTH_ENFORCE_SCOPES off: a key its owner narrowed. */
  scopesEnforced?: boolean;
}

/**
 * Resolved credentials, by the hash of their secret, for a few seconds (identity/credential-cache.ts).
 * Whatever revokes or re-points a credential, or changes a user's billing standing, forgets
 * it here at once.
 */
export interface CallerCache {
  get(secretHash: string, nowMs: number): Caller | undefined;
  /** Keeps a caller until the TTL passes, or `notAfterMs` (a token's own expiry) if sooner. */
  set(secretHash: string, caller: Caller, nowMs: number, notAfterMs?: number): void;
  /** Drops every credential of one user: their billing standing changed. */
  forgetUser(userId: string): void;
  /** Drops every entry of one credential (a key or an auth token), by its id. */
  forget(credentialId: string): void;
}

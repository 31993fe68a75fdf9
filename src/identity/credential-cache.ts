import type { Caller, CallerCache } from '../ports/callers.js';

interface Entry {
  caller: Caller;
  expiresAtMs: number;
}

/**
 * Resolved credentials, by the hash of their secret, for a few seconds: every request
 * presents one, and resolving it is a database round trip. Whatever revokes or re-points
 * a credential on this node forgets it here at once; other nodes of a cluster see the
 * change within the TTL.
 */
export class CredentialCache implements CallerCache {
  readonly #entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(secretHash: string, nowMs: number): Caller | undefined {
    const entry = this.#entries.get(secretHash);
    if (!entry) return undefined;
    if (entry.expiresAtMs > nowMs) return entry.caller;
    this.#entries.delete(secretHash);
    return undefined;
  }

  /** Keeps a caller until the TTL passes, or `notAfterMs` (a token's own expiry) if sooner. */
  set(secretHash: string, caller: Caller, nowMs: number, notAfterMs = Number.POSITIVE_INFINITY): void {
    if (this.ttlMs <= 0) return;
    if (this.#entries.size >= this.maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(secretHash, { caller, expiresAtMs: Math.min(nowMs + this.ttlMs, notAfterMs) });
  }

  /** Drops every credential of one user: their billing standing changed. */
  forgetUser(userId: string): void {
    for (const [hash, entry] of this.#entries) {
      if (entry.caller.userId === userId) this.#entries.delete(hash);
    }
  }

  /** Drops every entry of one credential (a key or an auth token), by its id. */
  forget(credentialId: string): void {
    for (const [hash, entry] of this.#entries) {
      if (entry.caller.credentialId === credentialId) this.#entries.delete(hash);
    }
  }
}

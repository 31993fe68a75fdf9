/**
 * Rate-limit counters behind one interface, so the in-memory store of a single node can be
 * replaced by a shared (Redis) store for a cluster. Time is passed in, never read here.
 *
 * Two kinds of rule:
 * - window: at most `limit` hits per fixed window (the REST limit, guess limiting);
 * - bucket: a burst of `capacity`, then one hit per `intervalMs` (activation creation and
 *   polling, where "at least N ms apart" must hold across window edges). Implemented as GCRA.
 */
export type RateRule =
  | { kind: 'window'; limit: number; windowMs: number }
  | { kind: 'bucket'; capacity: number; intervalMs: number };

export type WindowRule = Extract<RateRule, { kind: 'window' }>;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Until the window resets, or until the bucket is full again. */
  resetMs: number;
  /** Until the next hit would be allowed; 0 when allowed. */
  retryAfterMs: number;
}

export interface RateLimitStore {
  /**
   * Counts `hits` (default 1) when all of them are within the rule, and none otherwise: a
   * request that stands for several (a JSON-RPC batch) is allowed whole or refused whole.
   * A store that decides in memory answers at once: every request asks, and a promise
   * each was a measurable share of the cheapest requests.
   */
  consume(key: string, rule: RateRule, nowMs: number, hits?: number): RateDecision | Promise<RateDecision>;
  /** Reports what a hit would get, without counting one. */
  peek(key: string, rule: RateRule, nowMs: number): Promise<RateDecision>;
  /**
   * Gives back `hits` counted in the window that ends at `windowEndsAtMs` (the `nowMs` of
   * the hit plus its `resetMs`), if that is still the key's window, and answers what is left
   * of it. For a request counted as it arrived and then refused whole for the limit (a
   * JSON-RPC batch larger than what is left): a refusal costs nothing. A window that has
   * ended since keeps nothing of the hit, so nothing is given back to the next one.
   */
  release(key: string, rule: WindowRule, nowMs: number, hits: number, windowEndsAtMs: number): number | Promise<number>;
}

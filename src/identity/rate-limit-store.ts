import type { RateDecision, RateLimitStore, RateRule, WindowRule } from '../ports/rate-limits.js';

type Entry = { kind: 'window'; count: number; resetAt: number } | { kind: 'bucket'; tat: number };

const SWEEP_EVERY_MS = 60_000;

export class MemoryRateLimitStore implements RateLimitStore {
  readonly #entries = new Map<string, Entry>();
  #lastSweep = 0;

  consume(key: string, rule: RateRule, nowMs: number, hits = 1): RateDecision {
    return this.#hit(key, rule, nowMs, hits, true);
  }

  async peek(key: string, rule: RateRule, nowMs: number): Promise<RateDecision> {
    return this.#hit(key, rule, nowMs, 1, false);
  }

  release(key: string, rule: WindowRule, nowMs: number, hits: number, windowEndsAtMs: number): number {
    const entry = this.#entries.get(key);
    if (entry?.kind !== 'window' || entry.resetAt <= nowMs) return rule.limit;
    // Exact: the caller's end is this one's `nowMs + (resetAt - nowMs)`, which gives resetAt back.
    if (entry.resetAt === windowEndsAtMs) entry.count = Math.max(0, entry.count - hits);
    return Math.max(0, rule.limit - entry.count);
  }

  #hit(key: string, rule: RateRule, nowMs: number, hits: number, count: boolean): RateDecision {
    this.#sweep(nowMs);
    const entry = this.#entries.get(key);
    return rule.kind === 'window'
      ? this.#window(key, rule, entry?.kind === 'window' ? entry : undefined, nowMs, hits, count)
      : this.#bucket(key, rule, entry?.kind === 'bucket' ? entry : undefined, nowMs, hits, count);
  }

  #window(
    key: string,
    rule: Extract<RateRule, { kind: 'window' }>,
    entry: Extract<Entry, { kind: 'window' }> | undefined,
    nowMs: number,
    hits: number,
    count: boolean,
  ): RateDecision {
    const live = entry && entry.resetAt > nowMs ? entry : { kind: 'window' as const, count: 0, resetAt: nowMs + rule.windowMs };
    // The last of the hits must be within the limit (for one hit: count < limit, as always).
    const allowed = live.count + (hits - 1) < rule.limit;
    if (allowed && count) {
      live.count += hits;
      this.#entries.set(key, live);
    }
    const resetMs = live.resetAt - nowMs;
    return {
      allowed,
      limit: rule.limit,
      remaining: Math.max(0, rule.limit - live.count),
      resetMs,
      retryAfterMs: allowed ? 0 : resetMs,
    };
  }

  #bucket(
    key: string,
    rule: Extract<RateRule, { kind: 'bucket' }>,
    entry: Extract<Entry, { kind: 'bucket' }> | undefined,
    nowMs: number,
    hits: number,
    count: boolean,
  ): RateDecision {
    const span = rule.capacity * rule.intervalMs;
    const tat = Math.max(entry?.tat ?? nowMs, nowMs);
    const nextTat = tat + rule.intervalMs * hits;
    const allowAt = nextTat - span;
    const allowed = nowMs >= allowAt;
    const settledTat = allowed ? nextTat : tat;
    if (allowed && count) this.#entries.set(key, { kind: 'bucket', tat: nextTat });
    const consumedTat = count ? settledTat : tat;
    return {
      allowed,
      limit: rule.capacity,
      remaining: Math.max(0, Math.floor((span - (consumedTat - nowMs)) / rule.intervalMs)),
      resetMs: Math.max(0, consumedTat - nowMs),
      retryAfterMs: allowed ? 0 : allowAt - nowMs,
    };
  }

  /** Drops entries whose window or bucket has fully recovered, so memory follows live keys. */
  #sweep(nowMs: number): void {
    if (nowMs - this.#lastSweep < SWEEP_EVERY_MS) return;
    this.#lastSweep = nowMs;
    for (const [key, entry] of this.#entries) {
      const doneAt = entry.kind === 'window' ? entry.resetAt : entry.tat;
      if (doneAt <= nowMs) this.#entries.delete(key);
    }
  }
}

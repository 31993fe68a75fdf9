import { describe, expect, it } from 'vitest';
import { MemoryRateLimitStore, type RateRule } from '../../src/rate-limit/store.js';

const window: RateRule = { kind: 'window', limit: 3, windowMs: 60_000 };
const bucket: RateRule = { kind: 'bucket', capacity: 5, intervalMs: 1000 };

describe('fixed window', () => {
  it('allows `limit` hits, refuses the next until the window resets, and reports what is left', async () => {
    const store = new MemoryRateLimitStore();
    const t0 = 1_000_000;
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await store.consume('k', window, t0 + i * 1000));
    expect(hits.map((hit) => [hit.allowed, hit.remaining, hit.resetMs])).toEqual([
      [true, 2, 60_000],
      [true, 1, 59_000],
      [true, 0, 58_000],
      [false, 0, 57_000],
    ]);
    expect(hits[3]?.retryAfterMs).toBe(57_000);
    expect((await store.consume('k', window, t0 + 60_000)).remaining).toBe(2);
  });

  it('keeps keys apart, and peek counts nothing', async () => {
    const store = new MemoryRateLimitStore();
    await store.consume('a', window, 0);
    expect((await store.peek('a', window, 0)).remaining).toBe(2);
    expect((await store.peek('a', window, 0)).remaining).toBe(2);
    expect((await store.consume('b', window, 0)).remaining).toBe(2);
  });
});

describe('token bucket (GCRA)', () => {
  it('allows a burst of `capacity`, then one hit per interval', async () => {
    const store = new MemoryRateLimitStore();
    const burst = [];
    for (let i = 0; i < 6; i++) burst.push(await store.consume('k', bucket, 0));
    expect(burst.map((hit) => hit.allowed)).toEqual([true, true, true, true, true, false]);
    expect(burst.map((hit) => hit.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
    expect(burst[5]?.retryAfterMs).toBe(1000);
    expect((await store.consume('k', bucket, 999)).allowed).toBe(false);
    expect((await store.consume('k', bucket, 1000)).allowed).toBe(true);
    expect((await store.consume('k', bucket, 1000)).allowed).toBe(false);
  });

  it('with capacity 1 enforces a minimum spacing, across any window edge', async () => {
    const store = new MemoryRateLimitStore();
    const spaced: RateRule = { kind: 'bucket', capacity: 1, intervalMs: 1000 };
    expect((await store.consume('ip', spaced, 999)).allowed).toBe(true);
    expect((await store.consume('ip', spaced, 1001)).allowed).toBe(false);
    expect((await store.consume('ip', spaced, 1999)).allowed).toBe(true);
  });

  it('refills fully after capacity intervals of quiet', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 5; i++) await store.consume('k', bucket, 0);
    expect((await store.peek('k', bucket, 5000)).remaining).toBe(5);
    expect((await store.consume('k', bucket, 5000)).remaining).toBe(4);
  });
});

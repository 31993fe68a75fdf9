import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { RedisRateLimitStore } from '../../src/distributed/redis-rate-limit-store.js';
import { MemoryRateLimitStore } from '../../src/identity/rate-limit-store.js';
import type { RateDecision, RateLimitStore, RateRule, WindowRule } from '../../src/ports/rate-limits.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
// Every key of this run sits under one prefix, dropped at the end: some rules here last for years.
const runPrefix = `skillet:test:rl:${randomUUID()}:`;

function connect(options: { lazyConnect?: boolean } = {}): Redis {
  return new Redis(redisUrl, { ...options, connectTimeout: 2000, maxRetriesPerRequest: 1, retryStrategy: () => null });
}

/** The Redis half runs only where a server answers; otherwise it is skipped, loudly. */
async function reachRedis(): Promise<Redis | undefined> {
  const client = connect({ lazyConnect: true });
  // The socket's own error (ECONNREFUSED...) says more than the rejected connect() ("Connection is closed").
  let cause: Error | undefined;
  client.on('error', (error: Error) => {
    cause ??= error;
  });
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch (error) {
    const reason = (cause ?? (error as Error)).message;
    console.warn(`\n[skillet] Redis is not reachable at ${redisUrl} (${reason}): skipping the Redis store.\n`);
    client.disconnect();
    return undefined;
  }
}

const redis = await reachRedis();

afterAll(async () => {
  if (!redis) return;
  for await (const keys of redis.scanStream({ match: `${runPrefix}*`, count: 1000 }) as AsyncIterable<string[]>) {
    if (keys.length > 0) await redis.del(...keys);
  }
  await redis.quit();
});

function needRedis(): Redis {
  if (!redis) throw new Error('The Redis tests run only when Redis answers');
  return redis;
}

/** A store of its own for each test, so no test sees another's keys. */
function aRedisStore(client = needRedis(), prefix = `${runPrefix}${randomUUID()}:`): RedisRateLimitStore {
  return new RedisRateLimitStore(client, { prefix });
}

const window: RateRule = { kind: 'window', limit: 3, windowMs: 60_000 };
const bucket: RateRule = { kind: 'bucket', capacity: 5, intervalMs: 1000 };
const brief = (hit: RateDecision) => [hit.allowed, hit.remaining, hit.resetMs, hit.retryAfterMs];

describe.each([
  { name: 'memory', skip: false, open: (): RateLimitStore => new MemoryRateLimitStore() },
  { name: 'redis', skip: !redis, open: (): RateLimitStore => aRedisStore() },
])('$name store', ({ skip, open }) => {
  const test = it.skipIf(skip);

  describe('fixed window', () => {
    test('allows `limit` hits, refuses the next until the window resets, and reports what is left', async () => {
      const store = open();
      const t0 = 1_000_000;
      const hits = [];
      for (let i = 0; i < 4; i++) hits.push(await store.consume('k', window, t0 + i * 1000));
      expect(hits.map(brief)).toEqual([
        [true, 2, 60_000, 0],
        [true, 1, 59_000, 0],
        [true, 0, 58_000, 0],
        [false, 0, 57_000, 57_000],
      ]);
      expect(hits.every((hit) => hit.limit === 3)).toBe(true);
      expect(brief(await store.consume('k', window, t0 + 59_999))).toEqual([false, 0, 1, 1]);
      expect(brief(await store.consume('k', window, t0 + 60_000))).toEqual([true, 2, 60_000, 0]);
    });

    test('keeps keys apart, and peek counts nothing', async () => {
      const store = open();
      expect(brief(await store.peek('a', window, 0))).toEqual([true, 3, 60_000, 0]);
      await store.consume('a', window, 0);
      expect((await store.peek('a', window, 0)).remaining).toBe(2);
      expect((await store.peek('a', window, 0)).remaining).toBe(2);
      expect((await store.consume('b', window, 0)).remaining).toBe(2);
      await store.consume('a', window, 10);
      await store.consume('a', window, 20);
      expect(brief(await store.peek('a', window, 30))).toEqual([false, 0, 59_970, 59_970]);
      expect((await store.consume('b', window, 30)).remaining).toBe(1);
    });

    test('counts several hits at once when all fit, and none when any would not', async () => {
      const store = open();
      const five: RateRule = { kind: 'window', limit: 5, windowMs: 60_000 };
      expect(brief(await store.consume('k', five, 0, 3))).toEqual([true, 2, 60_000, 0]);
      expect(brief(await store.consume('k', five, 1000, 3))).toEqual([false, 2, 59_000, 59_000]);
      expect(brief(await store.peek('k', five, 1000))).toEqual([true, 2, 59_000, 0]);
      expect(brief(await store.consume('k', five, 2000, 2))).toEqual([true, 0, 58_000, 0]);
      expect(brief(await store.consume('k', five, 3000))).toEqual([false, 0, 57_000, 57_000]);
      expect(brief(await store.consume('k', five, 60_000, 6))).toEqual([false, 5, 60_000, 60_000]);
    });

    test('gives hits back only to the window that counted them, never below nothing', async () => {
      const store = open();
      const three: WindowRule = { kind: 'window', limit: 3, windowMs: 60_000 };
      const t0 = 1_000_000;
      const first = await store.consume('k', three, t0);
      const endsAt = t0 + first.resetMs;
      await store.consume('k', three, t0 + 1000);
      expect(await store.release('k', three, t0 + 2000, 1, endsAt)).toBe(2);
      expect(brief(await store.peek('k', three, t0 + 2000))).toEqual([true, 2, 58_000, 0]);
      expect(await store.release('k', three, t0 + 2000, 5, endsAt)).toBe(3);
      // Another window's end gives nothing back, and a key never counted has its whole limit.
      await store.consume('k', three, t0 + 3000);
      expect(await store.release('k', three, t0 + 3000, 1, endsAt + 1)).toBe(2);
      expect(await store.release('other', three, t0, 1, endsAt)).toBe(3);
      // Once the window is over, its hits are not given to the next one.
      await store.consume('k', three, t0 + 60_000);
      expect(await store.release('k', three, t0 + 60_001, 1, endsAt)).toBe(2);
      expect((await store.peek('k', three, t0 + 60_001)).remaining).toBe(2);
    });

    test('keeps the count and the end of a running window when its rule changes', async () => {
      const store = open();
      for (let i = 0; i < 3; i++) await store.consume('k', window, 0);
      const wider: RateRule = { kind: 'window', limit: 5, windowMs: 10_000 };
      expect(brief(await store.consume('k', wider, 1000))).toEqual([true, 1, 59_000, 0]);
      expect(brief(await store.consume('k', window, 2000))).toEqual([false, 0, 58_000, 58_000]);
      expect(brief(await store.consume('k', wider, 60_000))).toEqual([true, 4, 10_000, 0]);
    });
  });

  describe('token bucket (GCRA)', () => {
    test('allows a burst of `capacity`, then one hit per interval', async () => {
      const store = open();
      const burst = [];
      for (let i = 0; i < 6; i++) burst.push(await store.consume('k', bucket, 0));
      expect(burst.map(brief)).toEqual([
        [true, 4, 1000, 0],
        [true, 3, 2000, 0],
        [true, 2, 3000, 0],
        [true, 1, 4000, 0],
        [true, 0, 5000, 0],
        [false, 0, 5000, 1000],
      ]);
      expect(burst.every((hit) => hit.limit === 5)).toBe(true);
      expect(brief(await store.consume('k', bucket, 999))).toEqual([false, 0, 4001, 1]);
      expect(brief(await store.consume('k', bucket, 1000))).toEqual([true, 0, 5000, 0]);
      expect((await store.consume('k', bucket, 1000)).allowed).toBe(false);
      expect(brief(await store.consume('k', bucket, 2500))).toEqual([true, 0, 4500, 0]);
    });

    test('with capacity 1 enforces a minimum spacing, across any window edge', async () => {
      const store = open();
      const spaced: RateRule = { kind: 'bucket', capacity: 1, intervalMs: 1000 };
      expect((await store.consume('ip', spaced, 999)).allowed).toBe(true);
      expect(brief(await store.consume('ip', spaced, 1001))).toEqual([false, 0, 998, 998]);
      expect((await store.consume('ip', spaced, 1999)).allowed).toBe(true);
      expect((await store.consume('ip', spaced, 2000)).allowed).toBe(false);
      expect((await store.consume('ip', spaced, 2999)).allowed).toBe(true);
    });

    test('refills fully after capacity intervals of quiet', async () => {
      const store = open();
      for (let i = 0; i < 5; i++) await store.consume('k', bucket, 0);
      expect(brief(await store.peek('k', bucket, 2500))).toEqual([true, 2, 2500, 0]);
      expect(brief(await store.peek('k', bucket, 5000))).toEqual([true, 5, 0, 0]);
      expect(brief(await store.consume('k', bucket, 5000))).toEqual([true, 4, 1000, 0]);
    });

    test('peek counts nothing, and keys stay apart', async () => {
      const store = open();
      for (let i = 0; i < 10; i++) expect(brief(await store.peek('a', bucket, 0))).toEqual([true, 5, 0, 0]);
      for (let i = 0; i < 5; i++) await store.consume('a', bucket, 0);
      expect(brief(await store.peek('a', bucket, 0))).toEqual([false, 0, 5000, 1000]);
      expect(brief(await store.peek('a', bucket, 0))).toEqual([false, 0, 5000, 1000]);
      expect(brief(await store.consume('b', bucket, 0))).toEqual([true, 4, 1000, 0]);
    });

    test('takes several hits at once when the bucket holds them all, and none otherwise', async () => {
      const store = open();
      expect(brief(await store.consume('k', bucket, 0, 3))).toEqual([true, 2, 3000, 0]);
      expect(brief(await store.consume('k', bucket, 0, 3))).toEqual([false, 2, 3000, 1000]);
      expect(brief(await store.consume('k', bucket, 1000, 3))).toEqual([true, 0, 5000, 0]);
    });

    test('keeps its schedule when the capacity changes', async () => {
      const store = open();
      for (let i = 0; i < 5; i++) await store.consume('k', bucket, 0);
      const smaller: RateRule = { kind: 'bucket', capacity: 2, intervalMs: 1000 };
      expect(brief(await store.consume('k', smaller, 1000))).toEqual([false, 0, 4000, 3000]);
      expect(brief(await store.consume('k', smaller, 4000))).toEqual([true, 0, 2000, 0]);
    });
  });

  test('a key switched between a window and a bucket starts afresh each time', async () => {
    const store = open();
    for (let i = 0; i < 3; i++) await store.consume('k', window, 0);
    expect(brief(await store.consume('k', bucket, 0))).toEqual([true, 4, 1000, 0]);
    expect(brief(await store.consume('k', window, 0))).toEqual([true, 2, 60_000, 0]);
    expect(brief(await store.peek('k', bucket, 0))).toEqual([true, 5, 0, 0]);
  });

  describe('huge and tiny values', () => {
    test('counts exactly up to the largest safe integers', async () => {
      const store = open();
      const vast: RateRule = { kind: 'window', limit: Number.MAX_SAFE_INTEGER, windowMs: 2 ** 52 };
      const now = 1_700_000_000_000;
      expect(brief(await store.consume('w', vast, now))).toEqual([true, Number.MAX_SAFE_INTEGER - 1, 2 ** 52, 0]);
      expect(brief(await store.consume('w', vast, now + 2 ** 51))).toEqual([true, Number.MAX_SAFE_INTEGER - 2, 2 ** 51, 0]);
      const slow: RateRule = { kind: 'bucket', capacity: 1_000_000, intervalMs: 1e9 };
      expect(brief(await store.consume('b', slow, now))).toEqual([true, 999_999, 1e9, 0]);
      expect(brief(await store.consume('b', slow, now))).toEqual([true, 999_998, 2e9, 0]);
    });

    test('a window of Infinity never resets', async () => {
      const store = open();
      const once: RateRule = { kind: 'window', limit: 1, windowMs: Number.POSITIVE_INFINITY };
      expect(brief(await store.consume('k', once, 0))).toEqual([true, 0, Number.POSITIVE_INFINITY, 0]);
      const later = await store.consume('k', once, 1e15);
      expect(brief(later)).toEqual([false, 0, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY]);
    });

    test('one millisecond, and fractions of one, are kept exactly', async () => {
      const store = open();
      const blink: RateRule = { kind: 'window', limit: 1, windowMs: 1 };
      expect(brief(await store.consume('w', blink, 0))).toEqual([true, 0, 1, 0]);
      expect(brief(await store.consume('w', blink, 0))).toEqual([false, 0, 1, 1]);
      expect(brief(await store.consume('w', blink, 1))).toEqual([true, 0, 1, 0]);
      const half: RateRule = { kind: 'window', limit: 1, windowMs: 0.5 };
      expect(brief(await store.consume('h', half, 0.25))).toEqual([true, 0, 0.5, 0]);
      expect(brief(await store.consume('h', half, 0.5))).toEqual([false, 0, 0.25, 0.25]);
      expect(brief(await store.consume('h', half, 0.75))).toEqual([true, 0, 0.5, 0]);
      const quick: RateRule = { kind: 'bucket', capacity: 1, intervalMs: 0.25 };
      expect(brief(await store.consume('b', quick, 0))).toEqual([true, 0, 0.25, 0]);
      expect(brief(await store.consume('b', quick, 0.125))).toEqual([false, 0, 0.125, 0.125]);
      expect(brief(await store.consume('b', quick, 0.25))).toEqual([true, 0, 0.25, 0]);
    });

    test('a limit or a capacity of 0 refuses everything', async () => {
      const store = open();
      const none: RateRule = { kind: 'window', limit: 0, windowMs: 1000 };
      expect(brief(await store.consume('w', none, 0))).toEqual([false, 0, 1000, 1000]);
      expect(brief(await store.consume('w', none, 500))).toEqual([false, 0, 1000, 1000]);
      const empty: RateRule = { kind: 'bucket', capacity: 0, intervalMs: 1000 };
      expect(brief(await store.consume('b', empty, 0))).toEqual([false, 0, 0, 1000]);
    });
  });
});

describe.skipIf(!redis)('redis store only', () => {
  it('200 concurrent consumes from 4 connections on one key with limit 100 allow exactly 100, 20 times over', async () => {
    const clients = Array.from({ length: 4 }, () => connect());
    try {
      const prefix = `${runPrefix}${randomUUID()}:`;
      const stores = clients.map((client) => aRedisStore(client, prefix));
      const hundred: RateRule = { kind: 'window', limit: 100, windowMs: 60_000 };
      for (let round = 0; round < 20; round++) {
        const hits = await Promise.all(
          stores.flatMap((store, s) =>
            Array.from({ length: 50 }, (_, i) => store.consume(`r${round}`, hundred, 1000 + i * 4 + s)),
          ),
        );
        const allowed = hits.filter((hit) => hit.allowed);
        expect(allowed).toHaveLength(100);
        // Each allowed hit saw a count of its own: no two read the same value before writing.
        expect(allowed.map((hit) => hit.remaining).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      }
    } finally {
      await Promise.all(clients.map((client) => client.quit()));
    }
  });

  it('gives the memory store’s decisions over a long random run of rules, keys and times', async () => {
    const memory = new MemoryRateLimitStore();
    const shared = aRedisStore();
    const rules: RateRule[] = [
      window,
      bucket,
      { kind: 'window', limit: 1, windowMs: 1 },
      { kind: 'window', limit: 7, windowMs: 2500 },
      { kind: 'bucket', capacity: 1, intervalMs: 700 },
      { kind: 'bucket', capacity: 3, intervalMs: 0.5 },
    ];
    // A fixed-seed generator, so a failure replays; time only moves forward, as a clock does.
    let seed = 42;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    let now = 1_700_000_000_000;
    for (let i = 0; i < 2000; i++) {
      now += next(4) === 0 ? 0 : next(1500);
      const call = next(3) === 0 ? 'peek' : 'consume';
      const [key, rule] = [`k${next(3)}`, rules[next(rules.length)] ?? window];
      const expected = await memory[call](key, rule, now);
      expect({ i, ...(await shared[call](key, rule, now)) }).toEqual({ i, ...expected });
    }
  });

  it('writes keys under the prefix with an expiry from the rule, and writes nothing for a peek or a refusal', async () => {
    const client = needRedis();
    const prefix = `${runPrefix}${randomUUID()}:`;
    const store = aRedisStore(client, prefix);
    await store.consume('w', window, 1000);
    await store.consume('w', window, 31_000);
    expect(await client.pttl(`${prefix}w`)).toBeGreaterThan(25_000);
    expect(await client.pttl(`${prefix}w`)).toBeLessThanOrEqual(30_000 + 5000);
    for (let i = 0; i < 3; i++) await store.consume('b', bucket, 0);
    expect(await client.pttl(`${prefix}b`)).toBeGreaterThan(0);
    expect(await client.pttl(`${prefix}b`)).toBeLessThanOrEqual(3000 + 5000);
    await store.peek('p', window, 0);
    await store.consume('z', { kind: 'window', limit: 0, windowMs: 1000 }, 0);
    expect(await client.exists(`${prefix}p`, `${prefix}z`)).toBe(0);
    const key = randomUUID();
    await new RedisRateLimitStore(client).consume(key, window, 0);
    expect(await client.del(`skillet:rl:${key}`)).toBe(1);
  });

  it('loads its script again after Redis forgets it', async () => {
    const store = aRedisStore();
    await store.consume('k', window, 0);
    await needRedis().script('FLUSH');
    expect((await store.consume('k', window, 0)).remaining).toBe(1);
  });
});

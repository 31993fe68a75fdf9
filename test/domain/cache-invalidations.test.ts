import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type CredentialInvalidation,
  INVALIDATIONS_CHANNEL,
  SharedCredentialCache,
} from '../../src/identity/cache-invalidations.js';
import { CredentialCache } from '../../src/identity/credential-cache.js';
import type { Caller } from '../../src/ports/callers.js';
import { InProcessChannels } from '../../src/realtime/bus.js';
import { RedisChannels } from '../../src/realtime/redis-channels.js';
import { redisReachable, TEST_REDIS_URL } from '../helpers/redis.js';

const redisUrl = TEST_REDIS_URL;

const reachable = await redisReachable('the Redis tests');
const TTL_MS = 60_000;
const NOW_MS = 1_000_000;

function aCaller(credentialId: string, userId: string): Caller {
  return {
    kind: 'api_key',
    credentialId,
    userId,
    email: `${userId}@example.com`,
    isAdmin: false,
    userCreatedAt: '2026-01-01T00:00:00.000Z',
    personalWorkspaceId: `ws-${userId}`,
    workspaceId: `ws-${userId}`,
    workspaceName: null,
    workspacePersonal: true,
    role: 'owner',
    billing: { subscriptionExpiresAt: null, siteLicenseUntil: null, hasByok: false },
  };
}

/** The same three credentials on a node's cache: two of one user, one of another. */
function filled(cache: SharedCredentialCache): SharedCredentialCache {
  cache.set('hash-1', aCaller('key-1', 'user-1'), NOW_MS);
  cache.set('hash-2', aCaller('key-2', 'user-1'), NOW_MS);
  cache.set('hash-3', aCaller('key-3', 'user-2'), NOW_MS);
  return cache;
}

function cached(cache: SharedCredentialCache): string[] {
  return ['hash-1', 'hash-2', 'hash-3'].filter((hash) => cache.get(hash, NOW_MS) !== undefined);
}

describe('credential-cache invalidations, in one process', () => {
  it('forgets a credential, then a user, on every cache sharing the channels', () => {
    const channels = new InProcessChannels<CredentialInvalidation>();
    const [a, b] = [filled(new SharedCredentialCache(TTL_MS, channels)), filled(new SharedCredentialCache(TTL_MS, channels))];

    a.forget('key-1');
    expect([cached(a), cached(b)]).toEqual([
      ['hash-2', 'hash-3'],
      ['hash-2', 'hash-3'],
    ]);
    b.forgetUser('user-1');
    expect([cached(a), cached(b)]).toEqual([['hash-3'], ['hash-3']]);
  });

  it('publishes each forget once, naming its node, and does not apply it again when it comes back', () => {
    const channels = new InProcessChannels<CredentialInvalidation>();
    const published = vi.spyOn(channels, 'publish');
    const a = filled(new SharedCredentialCache(TTL_MS, channels, { nodeId: 'node-a' }));
    const applied = vi.spyOn(CredentialCache.prototype, 'forgetUser');
    try {
      a.forgetUser('user-2');
      expect(published.mock.calls).toEqual([[INVALIDATIONS_CHANNEL, { kind: 'user', id: 'user-2', node: 'node-a' }]]);
      expect(applied).toHaveBeenCalledTimes(1);
      expect(cached(a)).toEqual(['hash-1', 'hash-2']);
    } finally {
      applied.mockRestore();
    }
  });

  it('stops hearing other nodes once stopped', () => {
    const channels = new InProcessChannels<CredentialInvalidation>();
    const [a, b] = [filled(new SharedCredentialCache(TTL_MS, channels)), filled(new SharedCredentialCache(TTL_MS, channels))];
    b.stop();
    a.forget('key-3');
    expect([cached(a), cached(b)]).toEqual([
      ['hash-1', 'hash-2'],
      ['hash-1', 'hash-2', 'hash-3'],
    ]);
  });
});

describe.skipIf(!reachable)('credential-cache invalidations, across nodes over Redis', () => {
  const opened: RedisChannels<CredentialInvalidation>[] = [];

  async function twoNodes(): Promise<{
    a: SharedCredentialCache;
    b: SharedCredentialCache;
    channelsOfA: RedisChannels<CredentialInvalidation>;
  }> {
    const prefix = `skillet-test:${randomUUID()}:`;
    const open = () => RedisChannels.fromUrl<CredentialInvalidation>(redisUrl, { prefix, log: { warn: () => undefined } });
    const [channelsOfA, channelsOfB] = [open(), open()];
    opened.push(channelsOfA, channelsOfB);
    const a = filled(new SharedCredentialCache(TTL_MS, channelsOfA));
    const b = filled(new SharedCredentialCache(TTL_MS, channelsOfB));
    await Promise.all([channelsOfA.ready(), channelsOfB.ready()]);
    return { a, b, channelsOfA };
  }

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((channels) => channels.close()));
  });

  it("forgets on node B a credential forgotten on node A, and a user's credentials likewise", async () => {
    const { a, b } = await twoNodes();

    a.forget('key-1');
    expect(cached(a)).toEqual(['hash-2', 'hash-3']);
    await vi.waitFor(() => expect(cached(b)).toEqual(['hash-2', 'hash-3']));

    b.forgetUser('user-1');
    expect(cached(b)).toEqual(['hash-3']);
    await vi.waitFor(() => expect(cached(a)).toEqual(['hash-3']));
  });

  it('does not apply its own forget when it comes back through Redis', async () => {
    const { a, b, channelsOfA } = await twoNodes();
    const echoes: CredentialInvalidation[] = [];
    // After the cache's own listener, so once this one has it the cache has had it too.
    channelsOfA.subscribe(INVALIDATIONS_CHANNEL, (message) => echoes.push(message));

    a.forget('key-1');
    // The credential resolved again on node A before its own message returns.
    a.set('hash-1', aCaller('key-1', 'user-1'), NOW_MS);
    await vi.waitFor(() => expect(echoes).toHaveLength(1));
    expect(cached(a)).toEqual(['hash-1', 'hash-2', 'hash-3']);
    await vi.waitFor(() => expect(cached(b)).toEqual(['hash-2', 'hash-3']));
  });
});

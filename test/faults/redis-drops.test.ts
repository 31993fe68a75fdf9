import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExecution, runToEnd, sendMessage, streamOf, tickerRunTypes } from '../helpers/executions.js';
import { session, signUp, type TestUser } from '../helpers/factories.js';
import { type Client, client } from '../helpers/http.js';
import { redisReachable, TEST_REDIS_URL } from '../helpers/redis.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { expectEventsWhole, expectLedgerBalanced } from './invariants.js';

/**
 * Redis connections dropped under a distributed-mode server, Redis itself staying up. It is
 * the machine's Redis, which other test files use at the same time: the server signs in as
 * a Redis user of its own (an ACL user made for this file), so CLIENT KILL USER cuts its
 * connections, BullMQ's included, and no one else's. A SIGKILLed and emptied Redis is the
 * other case, in test/integration/distributed/cluster-processes.test.ts.
 */
const REDIS = await redisReachable('the Redis connection-drop faults');
const redisUser = `skillet-faults-${randomBytes(6).toString('hex')}`;

let admin: Redis;
let server: TestServer;
let api: Client;

beforeAll(async () => {
  if (!REDIS) return;
  admin = new Redis(TEST_REDIS_URL);
  const password = randomBytes(24).toString('hex');
  await admin.call('ACL', 'SETUSER', redisUser, 'on', `>${password}`, '~*', '&*', '+@all');
  const url = new URL(TEST_REDIS_URL);
  url.username = redisUser;
  url.password = password;
  server = await startServer({
    REDIS_URL: url.toString(),
    RATE_LIMIT_REST_PER_MINUTE: '100000',
    RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
  });
  api = client(server.url);
});
afterAll(async () => {
  // Right after the last drops: a close stuck on BullMQ's reconnecting connection used to
  // hang here past the hook's 30 s (app.ts now cuts it after 5).
  await server?.close();
  await admin?.call('ACL', 'DELUSER', redisUser);
  admin?.disconnect();
});

/** Drops every connection of the server's: commands, blocking reads and subscriptions. */
async function dropConnections(): Promise<number> {
  return Number(await admin.call('CLIENT', 'KILL', 'USER', redisUser));
}

/**
 * Drops the connections `pauseMs` apart while `running` is not settled, at most 30 times: a
 * loaded machine may take longer than the pause to reconnect, and Redis must come back for
 * the work to end. How many connections were dropped.
 */
async function dropWhile(running: Promise<unknown>, pauseMs: number): Promise<number> {
  let settled = false;
  void running.finally(() => {
    settled = true;
  });
  let dropped = 0;
  for (let round = 0; round < 30 && !settled; round++) {
    dropped += await dropConnections();
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }
  return dropped;
}

async function expectReplayOf(user: TestUser, executionId: string, live: { type: string; sequence: number }[]) {
  const replay = await streamOf(api, user, executionId);
  await replay.ended;
  expect(replay.events.map((event) => event.sequence)).toEqual(replay.events.map((_, i) => i + 1));
  expect(replay.events).toEqual(live);
}

describe.skipIf(!REDIS)('Redis connections dropped under a distributed-mode server', () => {
  it('a queued run whose connections drop again and again goes on to its result; its open stream misses nothing', async () => {
    const owner = await signUp(api);
    const ticks = 30;
    const created = await createExecution(api, owner, 'ticker', `${ticks} 30`);
    const live = await streamOf(api, owner, created.id);
    expect((await sendMessage(api, owner, created.id, `${ticks} 30`)).status).toBe(200);
    await live.waitFor(3);
    // Drops every 60 ms until the stream has ended: the worker's lock renewal, the bus and
    // the stream's subscription all lose their connection several times mid-run.
    expect(await dropWhile(live.ended, 60)).toBeGreaterThan(10);
    await live.ended;
    expect(live.droppedBy).toBeUndefined();
    expect(live.events.map((event) => event.type)).toEqual(tickerRunTypes(ticks));
    await expectReplayOf(owner, created.id, live.events);
  });

  it('runs started while connections drop end cleanly, and later requests and runs succeed', async () => {
    // Six runs queued under the drops: a job whose enqueue reply is lost may still be taken by the worker.
    const owners = await Promise.all(Array.from({ length: 6 }, () => signUp(api)));
    const runs = await Promise.all(
      owners.map(async (owner) => {
        const created = await createExecution(api, owner, 'priced-ticker', '10 30');
        const live = await streamOf(api, owner, created.id);
        return { owner, created, live };
      }),
    );
    const starting = Promise.all(runs.map((run) => sendMessage(api, run.owner, run.created.id, '10 30')));
    const ended = starting.then(() => Promise.all(runs.map((run) => run.live.ended)));
    await dropWhile(ended, 40);
    // The drops are over (they are bounded): every stream must now end with its run.
    await ended;
    for (const reply of await starting) expect(reply.status).toBe(200);
    for (const run of runs) {
      expect(run.live.droppedBy).toBeUndefined();
      expect(run.live.events.at(-1)?.type).toBe('session.status_idle');
      await expectReplayOf(run.owner, run.created.id, run.live.events);
    }
    const later = await signUp(api);
    const balance = await api.get('/api/v1/billing/balance', { headers: session(later) });
    expect(balance.status).toBe(200);
    expect((await runToEnd(api, later, 'ticker', '3 1')).stream.events.map((event) => event.type)).toEqual(tickerRunTypes(3));
    await expectEventsWhole(server.db.db);
    await expectLedgerBalanced(server.db.db);
  });

  it('requests in flight while connections drop are answered, never with a 500', async () => {
    const owner = await signUp(api);
    // Every request takes the rate-limit counters' connection, dropped here every 2 ms for a
    // while; requests wait for a reconnect, so the drops stop on their own rather than when
    // the requests are answered.
    const dropping = (async () => {
      for (let round = 0; round < 100; round++) {
        await dropConnections();
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    })();
    const replies = await Promise.all(
      Array.from({ length: 60 }, () => api.get('/api/v1/billing/balance', { headers: session(owner) })),
    );
    await dropping;
    for (const reply of replies) expect([200, 503]).toContain(reply.status);
  });
});

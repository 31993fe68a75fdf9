import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeStripe } from '../fakes/stripe.js';
import { balanceOf } from '../helpers/billing.js';
import { createExecution, runToEnd, sendMessage, streamOf, tickerRunTypes } from '../helpers/executions.js';
import { session, signUp } from '../helpers/factories.js';
import { type Client, client } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { expectEachPaymentGrantedOnce, expectEventsWhole, expectLedgerBalanced } from './invariants.js';
import { deliver, paidEvent, startPurchase, stripeSettings } from './payments.js';
import { applicationName, cutRepeatedly, namedPostgresUrl, terminateBackends } from './postgres.js';

// Every connection of this file's server (and of its schema's set-up) carries this name.
const NAME = applicationName('pg-drops');
vi.stubEnv('TEST_DATABASE_URL', namedPostgresUrl(NAME));

let stripe: Awaited<ReturnType<typeof fakeStripe>>;
let server: TestServer;
let api: Client;

beforeAll(async () => {
  stripe = await fakeStripe();
  server = await startServer({
    ...stripeSettings(stripe.url),
    RATE_LIMIT_REST_PER_MINUTE: '100000',
    RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
  });
  api = client(server.url);
});
afterAll(async () => {
  await server.close();
  await stripe.close();
});

/** The stream of a finished execution, replayed from the start: numbered 1.. with no gap. */
async function expectReplayWhole(user: Awaited<ReturnType<typeof signUp>>, executionId: string) {
  const replay = await streamOf(api, user, executionId);
  await replay.ended;
  expect(replay.droppedBy).toBeUndefined();
  expect(replay.events.map((event) => event.sequence)).toEqual(replay.events.map((_, i) => i + 1));
  return replay.events;
}

describe('PostgreSQL connections cut under a running service', () => {
  it('a run whose connections are cut several times goes on to its result, with every event', async () => {
    const owner = await signUp(api);
    const ticks = 40;
    const created = await createExecution(api, owner, 'ticker', `${ticks} 25`);
    const live = await streamOf(api, owner, created.id);
    expect((await sendMessage(api, owner, created.id, `${ticks} 25`)).status).toBe(200);
    await live.waitFor(3);
    // Cuts every few milliseconds for most of the run, so some land inside its writes.
    const cutter = cutRepeatedly(NAME, 5);
    try {
      await live.waitFor(ticks - 5);
    } finally {
      expect(await cutter.stop()).toBeGreaterThan(5);
    }
    await live.ended;
    expect(live.droppedBy).toBeUndefined();
    expect(live.events.map((event) => event.type)).toEqual(tickerRunTypes(ticks));
    const replay = await expectReplayWhole(owner, created.id);
    expect(replay).toEqual(live.events);
    const status = await api.get<{ status: string }>(`/api/v1/executions/${created.id}/status`, { headers: session(owner) });
    expect(status.body.status).toBe('completed');
  });

  it('connections cut while idle and while requests are in flight: every later request is answered', async () => {
    const owner = await signUp(api);
    await runToEnd(api, owner, 'ticker', '2 1');
    // Idle pooled connections go: the pool must notice, not crash the process.
    expect(await terminateBackends(NAME)).toBeGreaterThan(0);
    // Requests cut mid-query may fail, but as a 503 the client can retry, never as a 500.
    const cutter = cutRepeatedly(NAME, 2);
    const inFlight = await Promise.all(
      Array.from({ length: 60 }, () => api.get('/api/v1/billing/balance', { headers: session(owner) })),
    ).finally(() => cutter.stop());
    for (const reply of inFlight) expect([200, 503]).toContain(reply.status);
    await vi.waitFor(async () =>
      expect((await api.get('/api/v1/billing/balance', { headers: session(owner) })).status).toBe(200),
    );
    const later = await signUp(api);
    expect((await runToEnd(api, later, 'ticker', '3 1')).stream.events.map((event) => event.type)).toEqual(tickerRunTypes(3));
    await expectEventsWhole(server.db.db);
    await expectLedgerBalanced(server.db.db);
  });

  it('runs started while connections are being cut end cleanly: none stuck working, every stream closed', async () => {
    const owners = await Promise.all(Array.from({ length: 3 }, () => signUp(api)));
    const runs = await Promise.all(
      owners.map(async (owner) => {
        const created = await createExecution(api, owner, 'priced-ticker', '15 20');
        const live = await streamOf(api, owner, created.id);
        expect((await sendMessage(api, owner, created.id, '15 20')).status).toBe(200);
        return { owner, created, live };
      }),
    );
    // Cut until every run has ended: each must end through the cuts, not after them.
    const cutter = cutRepeatedly(NAME, 10);
    try {
      await Promise.all(runs.map((run) => run.live.ended));
    } finally {
      expect(await cutter.stop()).toBeGreaterThan(0);
    }
    for (const run of runs) {
      expect(run.live.droppedBy).toBeUndefined();
      expect(run.live.events.at(-1)?.type).toBe('session.status_idle');
      const replay = await expectReplayWhole(run.owner, run.created.id);
      expect(replay).toEqual(run.live.events);
    }
    await expectEventsWhole(server.db.db);
    await expectLedgerBalanced(server.db.db);
  });

  it('payment webhooks delivered while connections are cut: refused ones succeed on redelivery, each grants once', async () => {
    const buyer = await signUp(api);
    const before = (await balanceOf(api, buyer)).balance;
    const events = (await Promise.all(Array.from({ length: 20 }, () => startPurchase(api, buyer)))).map(paidEvent);
    const cutter = cutRepeatedly(NAME, 2);
    const statuses = await Promise.all(events.map((payload) => deliver(server.url, payload, server.clock.now()))).finally(() =>
      cutter.stop(),
    );
    for (const status of statuses) expect([200, 503]).toContain(status);
    // Stripe sends again every delivery it did not see acknowledged, and here the others too.
    for (const payload of events) expect(await deliver(server.url, payload, server.clock.now())).toBe(200);
    expect((await balanceOf(api, buyer)).balance).toBe(before + 100 * events.length);
    await expectEachPaymentGrantedOnce(server.db.db);
    await expectLedgerBalanced(server.db.db);
  });
});

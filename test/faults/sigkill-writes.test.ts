import { readdir } from 'node:fs/promises';
import path from 'node:path';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeStripe } from '../fakes/stripe.js';
import { checkoutBody, transactionsOf } from '../helpers/billing.js';
import { createExecution, runToEnd, sendMessage } from '../helpers/executions.js';
import { session, signUp, type TestUser } from '../helpers/factories.js';
import { expectStoreWhole, KILL_DELAYS_MS, type KillableServer, killableServer, pause } from './kill-rounds.js';

/**
 * SIGKILL of a real server process during each kind of write, at a spread of moments, then
 * a restart on the same database and data folder. test/integration/crash.test.ts and
 * artifact-crash.test.ts kill once at a chosen point and check one run; these kill in
 * rounds while many writes are in flight and check the invariants over everything stored.
 */
const WEBHOOK_SECRET = 'whsec_test_faults';

let stripe: Awaited<ReturnType<typeof fakeStripe>>;
let server: KillableServer;

beforeAll(async () => {
  stripe = await fakeStripe();
  server = await killableServer('faultkill', {
    SIGNUP_CREDITS: '10',
    STRIPE_SECRET_KEY: 'sk_test_faults',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_PUBLISHABLE_KEY: 'pk_test_faults',
    STRIPE_API_URL: stripe.url,
    RATE_LIMIT_REST_PER_MINUTE: '1000000',
    RATE_LIMIT_EXECUTIONS_PER_MINUTE: '1000000',
  });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await stripe?.close();
});

let eventNumber = 0;

/** A checkout.session.completed event for a session, as Stripe sends it. */
function paidEvent(sessionId: string): string {
  eventNumber += 1;
  return JSON.stringify({
    id: `evt_faults_${eventNumber}`,
    object: 'event',
    type: 'checkout.session.completed',
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    data: {
      object: {
        id: sessionId,
        object: 'checkout.session',
        mode: 'payment',
        payment_status: 'paid',
        payment_intent: `pi_${sessionId}`,
      },
    },
  });
}

/** Delivers an event as Stripe does, signed now; resolves to the status, or 0 when the server is gone. */
async function deliver(payload: string): Promise<number> {
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
  return fetch(`${server.baseUrl}/api/v1/billing/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  }).then(
    (response) => response.status,
    () => 0,
  );
}

async function startPurchase(buyer: TestUser): Promise<string> {
  const started = await server.api.post<{ checkoutUrl: string }>('/api/v1/billing/purchase', {
    body: checkoutBody({ packId: 'pack_100' }),
    headers: session(buyer),
  });
  expect(started.status).toBe(200);
  return started.body.checkoutUrl.split('/').pop() as string;
}

const rounds = KILL_DELAYS_MS.map((delay, round) => ({ round, delay }));

describe('SIGKILL during ledger writes: payment webhooks granting credits, runs holding their price', () => {
  it.each(rounds)('round $round: killed $delay ms into the writes', async ({ delay }) => {
    const buyer = await signUp(server.api);
    const sessions = await Promise.all(Array.from({ length: 12 }, () => startPurchase(buyer)));
    const events = sessions.map(paidEvent);
    const payers = await Promise.all(Array.from({ length: 3 }, () => signUp(server.api)));
    const runs = await Promise.all(payers.map((payer) => createExecution(server.api, payer, 'priced-ticker', '3 20')));

    // Every grant and every price hold in flight at once, and the kill somewhere among them.
    const inFlight = Promise.allSettled([
      ...events.map(deliver),
      ...runs.map((run, i) => sendMessage(server.api, payers[i] as TestUser, run.id, '3 20')),
    ]);
    await pause(delay);
    await server.killAndRestart();
    await inFlight;

    // Stripe delivers again whatever it did not see acknowledged; here, every event, twice.
    for (const payload of [...events, ...events]) expect(await deliver(payload)).toBe(200);
    const grants = (await transactionsOf(server.api, buyer)).filter((row) => row.amount === 100);
    expect(grants).toHaveLength(sessions.length);
    await expectStoreWhole(server);
  });
});

describe('SIGKILL while runs stream many events', () => {
  it.each(rounds)('round $round: killed $delay ms into the streams', async ({ delay }) => {
    const owners = await Promise.all(Array.from({ length: 2 }, () => signUp(server.api)));
    const runs = await Promise.all(owners.map((owner) => createExecution(server.api, owner, 'chatty', '4000 60')));
    const started = await Promise.all(runs.map((run, i) => sendMessage(server.api, owners[i] as TestUser, run.id, '4000 60')));
    for (const reply of started) expect(reply.status).toBe(200);
    await pause(delay);
    await server.killAndRestart();

    await expectStoreWhole(server);
    for (const [i, run] of runs.entries()) {
      const status = await server.api.get<{ status: string }>(`/api/v1/executions/${run.id}/status`, {
        headers: session(owners[i] as TestUser),
      });
      expect(['completed', 'failed']).toContain(status.body.status);
    }
    // The restarted server runs the same skill to its end.
    expect((await runToEnd(server.api, owners[0] as TestUser, 'chatty', '50 20')).stream.events.at(-1)?.type).toBe(
      'session.status_idle',
    );
  });
});

describe('SIGKILL while a bundle is being committed to the blob store', () => {
  const input = JSON.stringify({ files: Array.from({ length: 10 }, (_, i) => ({ path: `part-${i}.bin`, bytes: 1024 * 1024 })) });

  it.each(rounds)('round $round: killed $delay ms after staging began', async ({ delay }) => {
    const owner = await signUp(server.api);
    const run = await createExecution(server.api, owner, 'writer', input);
    expect((await sendMessage(server.api, owner, run.id, input)).status).toBe(200);
    // The commit starts with the first file staged; the delay moves the kill through staging,
    // the renames under the blobs' names and the transaction that records them.
    await vi.waitFor(
      async () => expect((await readdir(path.join(server.blobDir, 'tmp')).catch(() => [])).length).toBeGreaterThan(0),
      {
        timeout: 20_000,
        interval: 2,
      },
    );
    await pause(delay / 3);
    await server.killAndRestart();

    await expectStoreWhole(server);
    const status = await server.api.get<{ status: string }>(`/api/v1/executions/${run.id}/status`, { headers: session(owner) });
    expect(['completed', 'failed']).toContain(status.body.status);
  });
});

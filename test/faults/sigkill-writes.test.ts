import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fakeStripe } from '../fakes/stripe.js';
import { transactionsOf } from '../helpers/billing.js';
import { createExecution, runToEnd, sendMessage } from '../helpers/executions.js';
import { session, signUp, type TestUser } from '../helpers/factories.js';
import { expectStoreWhole, KILL_DELAYS_MS, type KillableServer, killableServer, pause } from './kill-rounds.js';
import { deliver, paidEvent, startPurchase, stripeSettings } from './payments.js';

/**
 * SIGKILL of a real server process during each kind of write, at a spread of moments, then
 * a restart on the same database and data folder. test/integration/crash.test.ts and
 * artifact-crash.test.ts kill once at a chosen point and check one run; these kill in
 * rounds while many writes are in flight and check the invariants over everything stored.
 */

let stripe: Awaited<ReturnType<typeof fakeStripe>>;
let server: KillableServer;

beforeAll(async () => {
  stripe = await fakeStripe();
  server = await killableServer('faultkill', {
    SIGNUP_CREDITS: '10',
    ...stripeSettings(stripe.url),
    RATE_LIMIT_REST_PER_MINUTE: '1000000',
    RATE_LIMIT_EXECUTIONS_PER_MINUTE: '1000000',
  });
}, 120_000);
afterAll(async () => {
  await server?.close();
  await stripe?.close();
});

/** Runs `work` again and again until `stopped()` says so; how many times it ran. */
async function repeatUntil(stopped: () => boolean, work: (i: number) => Promise<unknown>): Promise<number> {
  let i = 0;
  while (!stopped()) await work(i++);
  return i;
}

const statusOf = async (owner: TestUser, executionId: string) =>
  (await server.api.get<{ status: string }>(`/api/v1/executions/${executionId}/status`, { headers: session(owner) })).body.status;

const bundle = JSON.stringify({ files: Array.from({ length: 10 }, (_, i) => ({ path: `part-${i}.bin`, bytes: 1024 * 1024 })) });

describe('SIGKILL during every kind of write at once: ledger, events, artifacts', () => {
  it.each(KILL_DELAYS_MS.map((delay, round) => ({ round, delay })))(
    'round $round: killed $delay ms after the bundle began staging',
    async ({ delay }) => {
      const [buyer, streamerA, streamerB, writerOwner, ...payers] = await Promise.all(
        Array.from({ length: 7 }, () => signUp(server.api)),
      );
      if (!buyer || !streamerA || !streamerB || !writerOwner) throw new Error('sign-ups missing');
      const events = (await Promise.all(Array.from({ length: 48 }, () => startPurchase(server.api, buyer)))).map(paidEvent);
      const priced = await Promise.all(payers.map((payer) => createExecution(server.api, payer, 'priced-ticker', '3 20')));
      // Events: two runs streaming 20,000 messages each, far from done when the kill lands.
      const streams = [
        { owner: streamerA, run: await createExecution(server.api, streamerA, 'chatty', '20000 60') },
        { owner: streamerB, run: await createExecution(server.api, streamerB, 'chatty', '20000 60') },
      ];
      for (const { owner, run } of streams) expect((await sendMessage(server.api, owner, run.id, '20000 60')).status).toBe(200);
      // Artifacts: a ten-file bundle, committed to the blob store once the run ends.
      const writer = await createExecution(server.api, writerOwner, 'writer', bundle);
      expect((await sendMessage(server.api, writerOwner, writer.id, bundle)).status).toBe(200);
      // The delay moves the kill through staging, the renames under the blobs' names and the
      // transaction that records them, while the grants and the streams go on beside them.
      await vi.waitFor(
        async () => expect((await readdir(path.join(server.blobDir, 'tmp')).catch(() => [])).length).toBeGreaterThan(0),
        { timeout: 20_000, interval: 2 },
      );
      // Ledger: fresh payment events on two lanes (then the same again), and runs taking
      // their price, from now until the kill.
      let killed = false;
      const flood = Promise.all(
        [0, 1].map((lane) =>
          repeatUntil(
            () => killed,
            (i) => deliver(server.baseUrl, events[(2 * i + lane) % events.length] as string),
          ),
        ),
      );
      const holds = Promise.allSettled(priced.map((run, i) => sendMessage(server.api, payers[i] as TestUser, run.id, '3 20')));
      await pause(delay);
      const restarted = server.killAndRestart();
      killed = true;
      await restarted;
      expect((await flood).reduce((total, deliveries) => total + deliveries, 0)).toBeGreaterThan(0);
      await holds;

      await expectStoreWhole(server);
      // The kill landed while both streams were being written: each was ended by the restart.
      for (const { owner, run } of streams) expect(await statusOf(owner, run.id)).toBe('failed');
      expect(['completed', 'failed']).toContain(await statusOf(writerOwner, writer.id));
      // Stripe delivers again whatever it did not see acknowledged: here every event, twice.
      for (const payload of [...events, ...events]) expect(await deliver(server.baseUrl, payload)).toBe(200);
      const grants = (await transactionsOf(server.api, buyer)).filter((row) => row.amount === 100);
      expect(grants).toHaveLength(events.length);
      await expectStoreWhole(server);
      // The restarted server runs skills to their end.
      expect((await runToEnd(server.api, streamerA, 'ticker', '2 1')).stream.events.at(-1)?.type).toBe('session.status_idle');
    },
  );
});

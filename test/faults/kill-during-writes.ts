import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { fakeStripe } from '../fakes/stripe.js';
import { transactionsOf } from '../helpers/billing.js';
import { createExecution, runToEnd, sendMessage } from '../helpers/executions.js';
import { session, signUp, type TestUser } from '../helpers/factories.js';
import { expectStoreWhole, type KillableServer, killableServer, pause } from './kill-rounds.js';
import { deliver, paidEvent, startPurchase, stripeSettings } from './payments.js';

/**
 * One SIGKILL round that lands during every kind of write at once, for either engine (the
 * file's TEST_DB): test/integration/executions/crash.test.ts and artifacts/artifact-crash.test.ts kill once at a
 * chosen point and check one run; these kill while many writes are in flight and check the
 * invariants over everything stored.
 */

/** A killable server for the file, paying through a Stripe stand-in; started before its tests, gone after. */
export function killableServerForFile(name: string): () => KillableServer {
  let stripe: Awaited<ReturnType<typeof fakeStripe>> | undefined;
  let server: KillableServer | undefined;
  beforeAll(async () => {
    stripe = await fakeStripe();
    server = await killableServer(name, {
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
  return () => {
    if (!server) throw new Error('the server is not started');
    return server;
  };
}

/** Runs `work` again and again until `stopped()` says so; how many times it ran. */
async function repeatUntil(stopped: () => boolean, work: (i: number) => Promise<unknown>): Promise<number> {
  let i = 0;
  while (!stopped()) await work(i++);
  return i;
}

const statusOf = async (server: KillableServer, owner: TestUser, executionId: string) =>
  (await server.api.get<{ status: string }>(`/api/v1/executions/${executionId}/status`, { headers: session(owner) })).body.status;

const bundle = JSON.stringify({ files: Array.from({ length: 10 }, (_, i) => ({ path: `part-${i}.bin`, bytes: 1024 * 1024 })) });

/**
 * Starts every kind of write (payment grants and price holds, two runs streaming thousands
 * of events, a ten-file bundle's commit), SIGKILLs the server `delay` ms after the bundle began
 * staging, restarts it on the same data and checks what must hold.
 */
export async function killDuringEveryWrite(server: KillableServer, delay: number): Promise<void> {
  const [buyer, streamerA, streamerB, writerOwner, ...payers] = await Promise.all(
    Array.from({ length: 7 }, () => signUp(server.api)),
  );
  if (!buyer || !streamerA || !streamerB || !writerOwner) throw new Error('sign-ups missing');
  const events = (await Promise.all(Array.from({ length: 48 }, () => startPurchase(server.api, buyer)))).map(paidEvent);
  const priced = await Promise.all(payers.map((payer) => createExecution(server.api, payer, 'priced-ticker', '3 20')));
  // Events: a burst of 20,000 messages as fast as they go, and a ticker of 10,000 a
  // millisecond apart, which takes at least ten seconds and so is mid-stream at the kill.
  const burst = { owner: streamerA, input: '20000 60', run: await createExecution(server.api, streamerA, 'chatty', '20000 60') };
  const ticker = { owner: streamerB, input: '10000 1', run: await createExecution(server.api, streamerB, 'ticker', '10000 1') };
  for (const { owner, input, run } of [burst, ticker])
    expect((await sendMessage(server.api, owner, run.id, input)).status).toBe(200);
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
  // The kill landed while the ticker's events were being written: the restart ended it.
  expect(await statusOf(server, ticker.owner, ticker.run.id)).toBe('failed');
  expect(['completed', 'failed']).toContain(await statusOf(server, burst.owner, burst.run.id));
  expect(['completed', 'failed']).toContain(await statusOf(server, writerOwner, writer.id));
  // Stripe delivers again whatever it did not see acknowledged: here every event, twice.
  for (const payload of [...events, ...events]) expect(await deliver(server.baseUrl, payload)).toBe(200);
  const grants = (await transactionsOf(server.api, buyer)).filter((row) => row.amount === 100);
  expect(grants).toHaveLength(events.length);
  await expectStoreWhole(server);
  // The restarted server runs skills to their end.
  expect((await runToEnd(server.api, streamerA, 'ticker', '2 1')).stream.events.at(-1)?.type).toBe('session.status_idle');
}

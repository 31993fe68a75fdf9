/**
 * Payment webhook throughput: signed checkout.session.completed deliveries, 10% of them
 * repeated, against Skillet (verify, claim the event, grant once, all in one transaction)
 * and against a bare Fastify route that only checks the signature. Afterwards every
 * checkout must have granted exactly once.
 *
 * A warm-up goes to both servers first and is not counted: the deliveries of 3,000 checkouts,
 * three times over (to Skillet the second and third passes are redeliveries). Timed cold,
 * the baseline was measured before its code was compiled (at a third of its later speed)
 * against a Skillet already warmed by the checkouts. Then rounds alternate baseline and
 * Skillet, and the median of the rounds' ratios is reported, as in the HTTP benchmark.
 */
import { Agent, request } from 'node:http';
import Stripe from 'stripe';
import { fakeStripe } from '../test/fakes/stripe.js';
import { json, median, type Server, seedUser, startServer, stop } from './processes.js';

export const WEBHOOK_SECRET = 'whsec_bench_webhooks';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WARM_UP_CHECKOUTS = 3000;
const WARM_UP_PASSES = 3;
const CHECKOUTS_PER_ROUND = 1000;
/** Checkouts are created this many at a time, to keep the set-up short. */
const CHECKOUTS_IN_FLIGHT = 8;
const DUPLICATE_SHARE = 0.1;
const CONCURRENCY = 32;
const PACK_CREDITS = 100;

export interface Delivery {
  payload: string;
  signature: string;
}

function post(agent: Agent, url: string, delivery: Delivery): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${url}/api/v1/billing/webhook`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'stripe-signature': delivery.signature,
          'content-length': Buffer.byteLength(delivery.payload),
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(delivery.payload);
  });
}

/** Sends every delivery with CONCURRENCY in flight; returns deliveries per second. */
export async function blast(url: string, deliveries: Delivery[]): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < deliveries.length) {
        const status = await post(agent, url, deliveries[next++] as Delivery);
        if (status !== 200) failed++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  if (failed > 0) throw new Error(`${failed} deliveries to ${url} were refused`);
  return deliveries.length / seconds;
}

/** A round's deliveries: one completion per checkout, 10% sent twice, in a shuffled order. */
export function deliveriesFor(sessionIds: string[], round: number): Delivery[] {
  const events = sessionIds.map((id, i) =>
    JSON.stringify({
      id: `evt_bench_${round}_${i}`,
      object: 'event',
      type: 'checkout.session.completed',
      created: Math.floor(Date.now() / 1000),
      data: {
        object: {
          id,
          object: 'checkout.session',
          mode: 'payment',
          payment_status: 'paid',
          payment_intent: `pi_bench_${round}_${i}`,
        },
      },
    }),
  );
  const repeated = events.filter((_, i) => i % Math.round(1 / DUPLICATE_SHARE) === 0);
  const all = [...events, ...repeated].map((payload) => ({
    payload,
    signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
  }));
  for (let i = all.length - 1; i > 0; i--) {
    const j = (i * 7919 + round) % (i + 1);
    [all[i], all[j]] = [all[j] as Delivery, all[i] as Delivery];
  }
  return all;
}

/** A fresh checkout on Skillet, to be paid once: its session id. */
async function checkout(url: string, headers: Record<string, string>): Promise<string> {
  const { checkoutUrl } = await json<{ checkoutUrl: string }>(`${url}/api/v1/billing/purchase`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      packId: 'pack_100',
      email: 'bench@example.test',
      successUrl: 'https://x.test/ok',
      cancelUrl: 'https://x.test/no',
    }),
  });
  return checkoutUrl.split('/').pop() as string;
}

export async function checkouts(url: string, headers: Record<string, string>, count: number): Promise<string[]> {
  const sessionIds: string[] = [];
  let started = 0;
  await Promise.all(
    Array.from({ length: CHECKOUTS_IN_FLIGHT }, async () => {
      while (started < count) {
        started++;
        sessionIds.push(await checkout(url, headers));
      }
    }),
  );
  return sessionIds;
}

export async function webhookThroughput(): Promise<void> {
  const stripe = await fakeStripe();
  const ours = await startServer(
    'skillet',
    JSON.stringify({
      STRIPE_SECRET_KEY: 'sk_test_bench',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: stripe.url,
      SIGNUP_CREDITS: '0',
    }),
  );
  let bare: Server | undefined;
  try {
    bare = await startServer('webhook-baseline', WEBHOOK_SECRET);
    const { apiKey } = await seedUser(ours.url, 'webhooks@example.test');
    const headers = { 'x-api-key': apiKey };
    const warmUp = deliveriesFor(await checkouts(ours.url, headers, WARM_UP_CHECKOUTS), 0);
    for (let pass = 0; pass < WARM_UP_PASSES; pass++) {
      await blast(bare.url, warmUp);
      await blast(ours.url, warmUp);
    }
    const rounds: { ours: number; bare: number }[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const deliveries = deliveriesFor(await checkouts(ours.url, headers, CHECKOUTS_PER_ROUND), round);
      const bareRate = await blast(bare.url, deliveries);
      const oursRate = await blast(ours.url, deliveries);
      rounds.push({ ours: oursRate, bare: bareRate });
    }
    const { balance } = await json<{ balance: number }>(`${ours.url}/api/v1/billing/balance`, { headers });
    const expected = (WARM_UP_CHECKOUTS + ROUNDS * CHECKOUTS_PER_ROUND) * PACK_CREDITS;
    const ratio = median(rounds.map((round) => round.ours / round.bare));
    const oursRate = rounds.map((round) => round.ours);
    const bareRate = rounds.map((round) => round.bare);
    console.log(
      `\nPayment webhook: ${WARM_UP_CHECKOUTS} checkouts to warm up, then ${ROUNDS} alternating rounds of ${CHECKOUTS_PER_ROUND}, 10% delivered twice; medians\n`,
    );
    console.table([
      {
        measure: 'webhook deliveries per second vs a route that only checks the HMAC',
        skillet: Math.round(median(oursRate)),
        baseline: Math.round(median(bareRate)),
        ratio: Number(ratio.toFixed(2)),
        target: '>= 0.35',
        verdict: ratio >= 0.35 ? 'met' : 'MISSED',
      },
      {
        measure: 'credits granted vs one grant per checkout (double grants)',
        skillet: balance,
        baseline: expected,
        ratio: (balance - expected) / PACK_CREDITS,
        target: '0 double grants',
        verdict: balance === expected ? 'met' : 'MISSED',
      },
    ]);
    const perRound = rounds.map((round) => `${Math.round(round.ours)}/${Math.round(round.bare)}`).join(', ');
    console.log(`Rounds (skillet/baseline deliveries per second): ${perRound}`);
  } finally {
    await stop(ours);
    if (bare) await stop(bare);
    await stripe.close();
  }
}

/**
 * Payment webhook throughput: signed checkout.session.completed deliveries, 10% of them
 * repeated, against Skillet (verify, claim the event, grant once, all in one transaction)
 * and against a bare Fastify route that only checks the signature. Afterwards every
 * checkout must have granted exactly once.
 */
import { Agent, request } from 'node:http';
import Stripe from 'stripe';
import { fakeStripe } from '../test/fakes/stripe.js';
import { json, median, type Server, seedUser, startServer, stop } from './processes.js';

const SECRET = 'whsec_bench_webhooks';
const ROUNDS = 3;
const SESSIONS_PER_ROUND = 600;
const DUPLICATE_SHARE = 0.1;
const CONCURRENCY = 32;
const PACK_CREDITS = 100;

interface Delivery {
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
async function blast(url: string, deliveries: Delivery[]): Promise<number> {
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
function deliveriesFor(sessionIds: string[], round: number): Delivery[] {
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
    signature: Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }),
  }));
  for (let i = all.length - 1; i > 0; i--) {
    const j = (i * 7919 + round) % (i + 1);
    [all[i], all[j]] = [all[j] as Delivery, all[i] as Delivery];
  }
  return all;
}

export async function webhookThroughput(): Promise<void> {
  const stripe = await fakeStripe();
  const ours = await startServer(
    'skillet',
    JSON.stringify({
      STRIPE_SECRET_KEY: 'sk_test_bench',
      STRIPE_WEBHOOK_SECRET: SECRET,
      STRIPE_API_URL: stripe.url,
      SIGNUP_CREDITS: '0',
    }),
  );
  let bare: Server | undefined;
  try {
    bare = await startServer('webhook-baseline', SECRET);
    const { apiKey } = await seedUser(ours.url, 'webhooks@example.test');
    const headers = { 'x-api-key': apiKey };
    const oursRate: number[] = [];
    const bareRate: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const sessionIds: string[] = [];
      for (let i = 0; i < SESSIONS_PER_ROUND; i++) {
        const { checkoutUrl } = await json<{ checkoutUrl: string }>(`${ours.url}/api/v1/billing/purchase`, {
          method: 'POST',
          headers,
          body: JSON.stringify({
            packId: 'pack_100',
            email: 'bench@example.test',
            successUrl: 'https://x.test/ok',
            cancelUrl: 'https://x.test/no',
          }),
        });
        sessionIds.push(checkoutUrl.split('/').pop() as string);
      }
      const deliveries = deliveriesFor(sessionIds, round);
      bareRate.push(await blast(bare.url, deliveries));
      oursRate.push(await blast(ours.url, deliveries));
    }
    const { balance } = await json<{ balance: number }>(`${ours.url}/api/v1/billing/balance`, { headers });
    const expected = ROUNDS * SESSIONS_PER_ROUND * PACK_CREDITS;
    const ratio = median(oursRate) / median(bareRate);
    console.log(`\nPayment webhook: ${ROUNDS} rounds of ${SESSIONS_PER_ROUND} checkouts, 10% delivered twice; medians\n`);
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
  } finally {
    await stop(ours);
    if (bare) await stop(bare);
    await stripe.close();
  }
}

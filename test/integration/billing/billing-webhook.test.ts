import { describe, expect } from 'vitest';
import type { Env } from '../../../src/config.js';
import { runForArtifact } from '../../helpers/artifacts.js';
import {
  balanceOf,
  checkoutBody,
  type DeliveryOptions,
  deliverStripeEvent as deliverTo,
  secondsOf,
  stripeEnv,
  transactionsOf,
  STRIPE_WEBHOOK_SECRET as WEBHOOK_SECRET,
} from '../../helpers/billing.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { withStripeServer } from '../../helpers/fixtures.js';
import { client, type Reply } from '../../helpers/http.js';
import { startServer, type TestServer } from '../../helpers/server.js';

let eventNumber = 0;

async function startPurchaseOn(target: TestServer, person: TestUser, packId = 'pack_100'): Promise<string> {
  const started = await client(target.url).post<{ checkoutUrl: string }>('/api/v1/billing/purchase', {
    body: checkoutBody({ packId }),
    headers: session(person),
  });
  expect(started.status).toBe(200);
  const id = started.body.checkoutUrl.split('/').pop() as string;
  expect(started.body.checkoutUrl).toBe(`https://checkout.stripe.com/c/pay/${id}`);
  return id;
}

const it = withStripeServer((stripeUrl) =>
  // Limits no test here reaches.
  stripeEnv(stripeUrl, { RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' }),
)
  // Servers of a test's own (other limits, another Stripe), closed after it.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
  .extend('ownServer', ({}, { onCleanup }) => {
    const started: TestServer[] = [];
    onCleanup(async () => {
      for (const server of started) await server.close();
    });
    return async (env: Env) => {
      const server = await startServer(env);
      started.push(server);
      return server;
    };
  })
  // A server of the test's own billing through the stand-in, with the given limits.
  .extend(
    'stripeServer',
    ({ stripe, ownServer }) =>
      (limits: Env = {}) =>
        ownServer(stripeEnv(stripe.url, limits)),
  )
  // A Stripe event, created now by the file server's clock.
  .extend(
    'event',
    { scope: 'file' },
    ({ server }) =>
      (type: string, object: Record<string, unknown>, id = `evt_test_${++eventNumber}`) => ({
        id,
        object: 'event',
        type,
        created: secondsOf(server),
        livemode: false,
        data: { object },
      }),
  )
  .extend(
    'completed',
    { scope: 'file' },
    ({ event }) =>
      (sessionId: string, paymentIntent: string, paymentStatus = 'paid') =>
        event('checkout.session.completed', {
          id: sessionId,
          object: 'checkout.session',
          mode: 'payment',
          payment_status: paymentStatus,
          payment_intent: paymentIntent,
        }),
  )
  // Deliveries and purchases on the file's server.
  .extend(
    'deliver',
    { scope: 'file' },
    ({ server }) =>
      (body: unknown, options: DeliveryOptions = {}) =>
        deliverTo(server, body, options),
  )
  .extend(
    'startPurchase',
    { scope: 'file' },
    ({ server }) =>
      (person: TestUser, packId = 'pack_100') =>
        startPurchaseOn(server, person, packId),
  );

describe('Stripe checkout', () => {
  it('creates a Checkout Session in payment mode through the real SDK', async ({ api, stripe, startPurchase }) => {
    const person = await signUp(api);
    const sessionId = await startPurchase(person, 'pack_500');
    const sent = stripe.requests.at(-1);
    expect(sent?.path).toBe('/v1/checkout/sessions');
    expect(Object.fromEntries(sent?.form ?? [])).toMatchObject({
      mode: 'payment',
      customer_email: 'buyer@example.test',
      client_reference_id: person.user.id,
      success_url: 'https://app.example.test/paid',
      cancel_url: 'https://app.example.test/cancelled',
      'line_items[0][price_data][unit_amount]': '425',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][quantity]': '1',
    });
    expect(sessionId).toMatch(/^cs_test_/);
    const tier = await api.get('/api/v1/billing/subscription/tier', { headers: session(person) });
    expect(tier.body).toMatchObject({ isTestMode: true });
    expect((await api.get('/api/v1/billing/publishable-key', { headers: session(person) })).body).toEqual({
      publishableKey: 'pk_test_skillet',
    });
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0 });
  });
});

describe('the webhook', () => {
  it('the same event delivered 10 times at once credits once', async ({ api, completed, deliver, startPurchase }) => {
    const person = await signUp(api);
    const paid = completed(await startPurchase(person), 'pi_same_event');
    const replies = await Promise.all(Array.from({ length: 10 }, () => deliver(paid)));
    expect(replies.map((reply) => reply.status)).toEqual(Array(10).fill(200));
    expect(replies.filter((reply) => reply.body.outcome === 'applied')).toHaveLength(1);
    expect(await balanceOf(api, person)).toMatchObject({ balance: 100 });
    expect(await transactionsOf(api, person)).toHaveLength(1);
  });

  it('two different events for one checkout session credit once, in either order', async ({
    api,
    event,
    completed,
    deliver,
    startPurchase,
  }) => {
    const person = await signUp(api);
    const first = await startPurchase(person);
    const succeeded = event('checkout.session.async_payment_succeeded', {
      id: first,
      object: 'checkout.session',
      mode: 'payment',
      payment_status: 'paid',
      payment_intent: 'pi_two_events',
    });
    // Out of order: the payment succeeds before the completion that said it was still unpaid.
    await Promise.all([
      deliver(succeeded),
      deliver(completed(first, 'pi_two_events', 'unpaid')),
      deliver(completed(first, 'pi_two_events')),
    ]);
    expect(await balanceOf(api, person)).toMatchObject({ balance: 100 });
    expect(await transactionsOf(api, person)).toHaveLength(1);
  });

  it('refuses a bad signature, a stale timestamp and a malformed body with 400, changing nothing', async ({
    server,
    api,
    completed,
    deliver,
    startPurchase,
  }) => {
    const person = await signUp(api);
    const sessionId = await startPurchase(person);
    const paid = completed(sessionId, 'pi_refused');
    const attempts = [
      deliver(paid, { secret: 'whsec_someone_else' }),
      deliver(paid, { timestamp: secondsOf(server) - 600 }),
      deliver(undefined, { raw: '{"id": "evt_broken", "type": ' }),
      api.post('/api/v1/billing/webhook', { raw: JSON.stringify(paid) }),
      api.post('/api/v1/billing/webhook', { raw: JSON.stringify(paid), headers: { 'stripe-signature': 't=1,v1=deadbeef' } }),
    ];
    for (const reply of await Promise.all(attempts)) {
      expect([reply.status, reply.body]).toEqual([400, { error: { code: 'INVALID_INPUT', message: expect.any(String) } }]);
    }
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0 });
    expect(await transactionsOf(api, person)).toEqual([]);
    // The genuine delivery still works afterwards: nothing was claimed by the refused ones.
    expect((await deliver(paid)).body.outcome).toBe('applied');
  });

  it('a refund takes the credits back, never below zero, once per refunded amount', async ({
    api,
    event,
    completed,
    deliver,
    startPurchase,
  }) => {
    const person = await signUp(api);
    await deliver(completed(await startPurchase(person), 'pi_refund_me'));
    await runForArtifact(api, person, 'text-stats', 'spend one credit');
    expect(await balanceOf(api, person)).toMatchObject({ balance: 99, totalSpent: 1 });

    const charge = (refunded: number) =>
      event('charge.refunded', {
        id: 'ch_1',
        object: 'charge',
        amount: 100,
        amount_refunded: refunded,
        payment_intent: 'pi_refund_me',
      });
    await deliver(charge(40));
    expect(await balanceOf(api, person)).toMatchObject({ balance: 59 });
    const full = charge(100);
    await Promise.all([deliver(full), deliver(full)]);
    expect(await balanceOf(api, person)).toMatchObject({ balance: 0 });
    const [last, partial] = await transactionsOf(api, person);
    expect(partial).toMatchObject({
      amount: -40,
      type: 'usage',
      executionId: null,
      description: expect.stringContaining('Refund'),
    });
    expect(last).toMatchObject({
      amount: -59,
      type: 'usage',
      executionId: null,
      description: expect.stringContaining('1 Ds could not be taken back'),
    });
    const ledger = await transactionsOf(api, person);
    expect(ledger.reduce((sum, entry) => sum + entry.amount, 0)).toBe(0);
  });
});

describe('a checkout Stripe cannot create', () => {
  it('is a 500 INTERNAL_ERROR and records nothing', async ({ ownServer }) => {
    const unreachable = await ownServer({
      STRIPE_SECRET_KEY: 'sk_test_down',
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: 'http://127.0.0.1:9',
    });
    const down = client(unreachable.url);
    const person = await signUp(down);
    const reply = await down.post('/api/v1/billing/purchase', {
      body: checkoutBody({ packId: 'pack_100' }),
      headers: session(person),
    });
    expect([reply.status, reply.body]).toEqual([500, { error: { code: 'INTERNAL_ERROR', message: expect.any(String) } }]);
    expect(await unreachable.db.db.selectFrom('checkout_sessions').selectAll().execute()).toEqual([]);
  });
});

describe('a Stripe subscription', () => {
  it('starts basedmode and each paid renewal grants 2000 Ds and a month, once per invoice', async ({
    api,
    stripe,
    event,
    deliver,
  }) => {
    const person = await signUp(api);
    const started = await api.post<{ checkoutUrl: string }>('/api/v1/billing/subscribe', {
      body: checkoutBody(),
      headers: session(person),
    });
    const sessionId = started.body.checkoutUrl.split('/').pop() as string;
    expect(Object.fromEntries(stripe.requests.at(-1)?.form ?? [])).toMatchObject({
      mode: 'subscription',
      'line_items[0][price_data][unit_amount]': '2900',
      'line_items[0][price_data][recurring][interval]': 'month',
    });
    await deliver(
      event('checkout.session.completed', {
        id: sessionId,
        object: 'checkout.session',
        mode: 'subscription',
        payment_status: 'paid',
        payment_intent: null,
        subscription: 'sub_based',
      }),
    );
    const tier = async () =>
      (
        await api.get<{ tier: string; subscriptionExpiresAt: string }>('/api/v1/billing/subscription/tier', {
          headers: session(person),
        })
      ).body;
    const first = await tier();
    expect(first.tier).toBe('basedmode');
    const renewal = (id: string) =>
      event(
        'invoice.paid',
        { id: 'in_second_month', object: 'invoice', billing_reason: 'subscription_cycle', subscription: 'sub_based' },
        id,
      );
    await deliver(renewal('evt_renewal_a'));
    await deliver(renewal('evt_renewal_b'));
    expect(await balanceOf(api, person)).toMatchObject({ balance: 4000 });
    const second = await tier();
    const expected = new Date(first.subscriptionExpiresAt);
    expected.setUTCMonth(expected.getUTCMonth() + 1);
    expect(second.subscriptionExpiresAt).toBe(expected.toISOString());
  });
});

describe('the webhook rate limit', () => {
  const headersOf = (reply: Reply) =>
    ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'].map((name) => reply.headers.get(name));

  function expectRateLimited(reply: Reply): void {
    expect([reply.status, reply.body]).toEqual([429, { error: { type: 'rate_limit_error', message: expect.any(String) } }]);
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }

  /** Anonymous requests from the test's address (every test client is 127.0.0.1). */
  const anonymous = (target: TestServer) => client(target.url).get('/api/v1/me');

  it('is not the anonymous REST limit: with 5 REST requests a minute, 50 signed deliveries from one address all pass and grant once each', async ({
    stripeServer,
    completed,
  }) => {
    const limited = await stripeServer({ RATE_LIMIT_REST_PER_MINUTE: '5' });
    const person = await signUp(client(limited.url));
    const sessionIds: string[] = [];
    for (let i = 0; i < 25; i++) {
      if (i % 5 === 0) limited.clock.advance(60_000); // the buyer's own REST window
      sessionIds.push(await startPurchaseOn(limited, person));
    }
    limited.clock.advance(60_000);
    for (let i = 0; i < 4; i++) expect((await anonymous(limited)).status).toBe(401);

    const replies: Reply<{ outcome: string }>[] = [];
    for (const [i, sessionId] of sessionIds.entries()) {
      const paid = completed(sessionId, `pi_many_${i}`);
      replies.push(await deliverTo(limited, paid), await deliverTo(limited, paid));
    }
    expect(replies.map((reply) => reply.status)).toEqual(Array(50).fill(200));
    expect(replies.filter((reply) => reply.body.outcome === 'applied')).toHaveLength(25);
    // Their headers describe the webhook's own window (6000 a minute unless configured).
    expect(headersOf(replies[0] as Reply)).toEqual(['6000', '5999', '60']);
    expect(headersOf(replies[49] as Reply)).toEqual(['6000', '5950', '60']);

    // The address still has the one REST request it had left.
    const last = await anonymous(limited);
    expect([last.status, ...headersOf(last)]).toEqual([401, '5', '0', '60']);
    expectRateLimited(await anonymous(limited));
    expect(await balanceOf(client(limited.url), person)).toMatchObject({ balance: 2500 });
    expect(await transactionsOf(client(limited.url), person)).toHaveLength(25);
  });

  it('refuses a forged or unsigned delivery with 400 before counting it in any window', async ({ stripeServer, completed }) => {
    const limited = await stripeServer({ RATE_LIMIT_REST_PER_MINUTE: '5', RATE_LIMIT_WEBHOOK_PER_MINUTE: '3' });
    const to = client(limited.url);
    const person = await signUp(to);
    const paid = completed(await startPurchaseOn(limited, person), 'pi_forged');
    limited.clock.advance(60_000);

    for (let i = 0; i < 10; i++) {
      const refused = [
        await deliverTo(limited, paid, { secret: 'whsec_forger' }),
        await to.post('/api/v1/billing/webhook', { raw: JSON.stringify(paid) }),
      ];
      for (const reply of refused) {
        expect([reply.status, reply.body]).toEqual([400, { error: { code: 'INVALID_INPUT', message: expect.any(String) } }]);
        // The headers describe the webhook's window, which they did not touch.
        expect(headersOf(reply)).toEqual(['3', '3', '60']);
      }
    }

    // Neither the webhook's window nor the address's REST window was spent.
    const genuine = await deliverTo(limited, paid);
    expect([genuine.status, genuine.body.outcome, ...headersOf(genuine)]).toEqual([200, 'applied', '3', '2', '60']);
    for (let i = 0; i < 5; i++) expect((await anonymous(limited)).status).toBe(401);
    expectRateLimited(await anonymous(limited));
  });

  it('past its own limit answers 429 in the rate-limit envelope, and the refused delivery changes nothing', async ({
    stripeServer,
    completed,
  }) => {
    const limited = await stripeServer({ RATE_LIMIT_WEBHOOK_PER_MINUTE: '3' });
    const to = client(limited.url);
    const person = await signUp(to);
    const events: ReturnType<typeof completed>[] = [];
    for (let i = 0; i < 4; i++) events.push(completed(await startPurchaseOn(limited, person), `pi_limited_${i}`));

    for (const [i, paid] of events.slice(0, 3).entries()) {
      const reply = await deliverTo(limited, paid);
      expect([reply.status, reply.body.outcome, ...headersOf(reply)]).toEqual([200, 'applied', '3', String(2 - i), '60']);
    }
    limited.clock.advance(15_000);
    const refused = await deliverTo(limited, events[3]);
    expectRateLimited(refused);
    expect([refused.headers.get('retry-after'), ...headersOf(refused)]).toEqual(['45', '3', '0', '45']);
    expect(await balanceOf(to, person)).toMatchObject({ balance: 300 });

    // Stripe retries later, and then it counts.
    limited.clock.advance(45_000);
    expect((await deliverTo(limited, events[3])).body.outcome).toBe('applied');
    expect(await balanceOf(to, person)).toMatchObject({ balance: 400 });
  });

  it('the local checkout delivers in-process: paying spends neither the REST window of the buyer’s address nor the webhook’s', async ({
    ownServer,
  }) => {
    const limited = await ownServer({ SIGNUP_CREDITS: '0', RATE_LIMIT_REST_PER_MINUTE: '5', RATE_LIMIT_WEBHOOK_PER_MINUTE: '1' });
    const to = client(limited.url);
    const person = await signUp(to);
    limited.clock.advance(60_000);
    const checkoutUrls: string[] = [];
    for (let i = 0; i < 2; i++) {
      const started = await to.post<{ checkoutUrl: string }>('/api/v1/billing/purchase', {
        body: checkoutBody({ packId: 'pack_100' }),
        headers: session(person),
      });
      checkoutUrls.push(started.body.checkoutUrl);
    }

    // The buyer's browser (anonymous, from this address) opens both pages and pays both:
    // four of its five requests, the limit less one.
    for (const url of checkoutUrls) expect((await fetch(url)).status).toBe(200);
    for (const url of checkoutUrls) {
      const paid = await fetch(`${url}/pay`, { method: 'POST', redirect: 'manual' });
      expect([paid.status, paid.headers.get('location')]).toEqual([303, 'https://app.example.test/paid']);
    }
    // It can still make one more request, and both payments were granted although the
    // webhook would take only one delivery a minute from this address.
    const more = await fetch(checkoutUrls[0] as string);
    expect([more.status, more.headers.get('x-ratelimit-remaining')]).toEqual([200, '0']);
    expect((await fetch(checkoutUrls[0] as string)).status).toBe(429);
    expect(await balanceOf(to, person)).toMatchObject({ balance: 200 });
    expect(await transactionsOf(to, person)).toHaveLength(2);
  });
});

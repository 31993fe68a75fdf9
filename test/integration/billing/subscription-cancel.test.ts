import { randomBytes } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { SubscriptionStatus } from '../../../src/sdk/types.js';
import { checkoutBody, deliverStripeEvent, secondsOf, stripeEnv } from '../../helpers/billing.js';
import { createKey, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withStripeServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';
import type { TestServer } from '../../helpers/server.js';

const it = withStripeServer((stripeUrl) => stripeEnv(stripeUrl, { RATE_LIMIT_REST_PER_MINUTE: '100000' }));

let eventNumber = 0;

function event(server: TestServer, type: string, object: Record<string, unknown>) {
  return {
    id: `evt_cancel_${++eventNumber}`,
    object: 'event',
    type,
    created: secondsOf(server),
    livemode: false,
    data: { object },
  };
}

/** A person on Based through Stripe: the checkout started here and its completion delivered, signed. */
async function subscribed(api: Client, server: TestServer, subscriptionId: string): Promise<TestUser> {
  const person = await signUp(api);
  const started = await api.post<{ checkoutUrl: string }>('/api/v1/billing/subscribe', {
    body: checkoutBody(),
    headers: session(person),
  });
  expect(started.status).toBe(200);
  const completed = event(server, 'checkout.session.completed', {
    id: started.body.checkoutUrl.split('/').pop(),
    object: 'checkout.session',
    mode: 'subscription',
    payment_status: 'paid',
    payment_intent: null,
    subscription: subscriptionId,
  });
  expect((await deliverStripeEvent(server, completed)).body).toMatchObject({ outcome: 'applied' });
  return person;
}

const statusOf = async (api: Client, person: TestUser) =>
  (await api.get<SubscriptionStatus>('/api/v1/billing/subscription', { headers: session(person) })).body;

const tierOf = async (api: Client, person: TestUser) =>
  (await api.get<{ tier: string }>('/api/v1/billing/subscription/tier', { headers: session(person) })).body.tier;

const subscriptionId = (what: string) => `sub_${what}_${randomBytes(4).toString('hex')}`;

describe('cancelling a Based subscription', () => {
  it('stops the renewal at Stripe, keeps Based until the paid month ends, and says so when nothing renews', async ({
    api,
    server,
    stripe,
  }) => {
    const id = subscriptionId('cancel');
    const person = await subscribed(api, server, id);
    const before = await statusOf(api, person);
    expect(before).toEqual({ subscribed: true, renews: true, paidUntil: expect.any(String) });

    const cancelled = await api.post<SubscriptionStatus>('/api/v1/billing/subscription/cancel', { headers: session(person) });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toEqual({ subscribed: true, renews: false, paidUntil: before.paidUntil });
    const told = stripe.requests.filter((request) => request.path === `/v1/subscriptions/${id}`);
    expect(told.map((request) => Object.fromEntries(request.form))).toEqual([{ cancel_at_period_end: 'true' }]);
    expect(await tierOf(api, person)).toBe('basedmode');
    expect(await statusOf(api, person)).toEqual(cancelled.body);

    const again = await api.post('/api/v1/billing/subscription/cancel', { headers: session(person) });
    expect([again.status, again.body]).toEqual([
      409,
      { error: { code: 'CONFLICT', message: 'You have no subscription that renews, so there is nothing to cancel.' } },
    ]);
    expect(stripe.requests.filter((request) => request.path === `/v1/subscriptions/${id}`)).toHaveLength(1);
  });

  it('touches nobody else’s subscription: another person has nothing to cancel', async ({ api, server, stripe }) => {
    const id = subscriptionId('theirs');
    const owner = await subscribed(api, server, id);
    const stranger = await signUp(api);
    expect(await statusOf(api, stranger)).toEqual({ subscribed: false, renews: false, paidUntil: null });
    const refused = await api.post('/api/v1/billing/subscription/cancel', { headers: session(stranger) });
    expect(refused.status).toBe(409);
    expect(stripe.requests.some((request) => request.path === `/v1/subscriptions/${id}`)).toBe(false);
    expect((await statusOf(api, owner)).renews).toBe(true);
  });

  it('keeps the subscription renewing, and says so, when Stripe refuses the cancellation', async ({ api, server }) => {
    const person = await subscribed(api, server, subscriptionId('unknown'));
    const refused = await api.post('/api/v1/billing/subscription/cancel', { headers: session(person) });
    expect([refused.status, refused.body]).toEqual([
      503,
      {
        error: {
          code: 'SERVICE_UNAVAILABLE',
          message: 'The payment provider could not cancel your subscription just now, so it still renews. Try again in a minute.',
        },
      },
    ]);
    expect((await statusOf(api, person)).renews).toBe(true);
  });

  it('follows a cancellation, a resumption and the end made at Stripe', async ({ api, server }) => {
    const id = subscriptionId('portal');
    const person = await subscribed(api, server, id);
    const changed = (type: string, cancelAtPeriodEnd: boolean) =>
      deliverStripeEvent(server, event(server, type, { id, object: 'subscription', cancel_at_period_end: cancelAtPeriodEnd }));

    expect((await changed('customer.subscription.updated', true)).body).toMatchObject({ outcome: 'applied' });
    expect((await statusOf(api, person)).renews).toBe(false);
    expect((await changed('customer.subscription.updated', false)).body).toMatchObject({ outcome: 'applied' });
    expect((await statusOf(api, person)).renews).toBe(true);

    expect((await changed('customer.subscription.deleted', false)).body).toMatchObject({ outcome: 'applied' });
    expect(await statusOf(api, person)).toEqual({ subscribed: false, renews: false, paidUntil: null });
    expect(await tierOf(api, person)).toBe('paygmode');
  });

  it('answers a key as it answers a session, and nobody signed out', async ({ api, server }) => {
    const person = await subscribed(api, server, subscriptionId('key'));
    const { key } = await createKey(api, person);
    expect(
      (await api.get<SubscriptionStatus>('/api/v1/billing/subscription', { headers: { 'x-api-key': key } })).body.renews,
    ).toBe(true);
    expect((await api.post('/api/v1/billing/subscription/cancel')).status).toBe(401);
    expect((await api.post('/api/v1/billing/subscription/cancel', { headers: { 'x-api-key': key } })).status).toBe(200);
  });
});

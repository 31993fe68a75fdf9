import Stripe from 'stripe';
import { expect } from 'vitest';
import type { Env } from '../../src/config.js';
import type { Balance, Transaction } from '../../src/sdk/types.js';
import { createKey, session, signUp, type TestUser } from './factories.js';
import { type Client, client } from './http.js';
import type { TestServer } from './server.js';

export const balanceOf = async (api: Client, user: TestUser) =>
  (await api.get<Balance>('/api/v1/billing/balance', { headers: session(user) })).body;

export const transactionsOf = async (api: Client, user: TestUser) =>
  (await api.get<{ transactions: Transaction[] }>('/api/v1/billing/transactions', { headers: session(user) })).body.transactions;

export const checkoutBody = (extra: Record<string, unknown> = {}) => ({
  email: 'buyer@example.test',
  successUrl: 'https://app.example.test/paid',
  cancelUrl: 'https://app.example.test/cancelled',
  ...extra,
});

/** Buys a pack through the local test-mode checkout: start, press Pay, follow nothing. */
export async function buyWithLocalCheckout(api: Client, baseUrl: string, user: TestUser, packId = 'pack_100') {
  const started = await api.post<{ checkoutUrl: string }>('/api/v1/billing/purchase', {
    body: checkoutBody({ packId }),
    headers: session(user),
  });
  expect(started.status).toBe(200);
  const paid = await fetch(`${started.body.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
  expect(paid.status).toBe(303);
  expect(paid.headers.get('location')).toBe('https://app.example.test/paid');
  expect(started.body.checkoutUrl.startsWith(`${baseUrl}/billing/checkout/`)).toBe(true);
  return started.body.checkoutUrl;
}

/** Gives a person a site license until 2099: runs and MCP without a subscription or credits. */
export async function grantSiteLicense(server: TestServer, userId: string): Promise<void> {
  await server.db.db
    .updateTable('users')
    .set({ site_license_until: '2099-01-01T00:00:00.000Z' })
    .where('id', '=', userId)
    .execute();
}

/** A person with a site license (the simplest way past MCP's basedmode check), and a key of theirs made after it. */
export async function licensedKey(server: TestServer, api: Client): Promise<{ person: TestUser; key: string }> {
  const person = await signUp(api);
  await grantSiteLicense(server, person.user.id);
  return { person, key: (await createKey(api, person)).key };
}

export const STRIPE_WEBHOOK_SECRET = 'whsec_test_skillet';

/** Settings for billing through Stripe (the stand-in at `stripeUrl`), with the given limits. */
export const stripeEnv = (stripeUrl: string, limits: Env = {}): Env => ({
  SIGNUP_CREDITS: '0',
  STRIPE_SECRET_KEY: 'sk_test_skillet',
  STRIPE_WEBHOOK_SECRET,
  STRIPE_PUBLISHABLE_KEY: 'pk_test_skillet',
  STRIPE_API_URL: stripeUrl,
  ...limits,
});

/** The server's clock in Stripe's unit (event `created`, signature timestamps). */
export const secondsOf = (target: TestServer) => Math.floor(target.clock.nowMs() / 1000);

export interface DeliveryOptions {
  secret?: string;
  timestamp?: number;
  raw?: string;
}

/** Delivers an event the way Stripe does: the JSON body signed with the SDK's own test-header helper. */
export function deliverStripeEvent(target: TestServer, body: unknown, options: DeliveryOptions = {}) {
  const payload = options.raw ?? JSON.stringify(body);
  const signature = Stripe.webhooks.generateTestHeaderString({
    payload,
    secret: options.secret ?? STRIPE_WEBHOOK_SECRET,
    timestamp: options.timestamp ?? secondsOf(target),
  });
  return client(target.url).post<{ received: boolean; outcome: string }>('/api/v1/billing/webhook', {
    raw: payload,
    headers: { 'stripe-signature': signature },
  });
}

import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { expect } from 'vitest';
import type { Env } from '../../src/config.js';
import { checkoutBody } from '../helpers/billing.js';
import { session, type TestUser } from '../helpers/factories.js';
import type { Client } from '../helpers/http.js';

/** Payments through the Stripe stand-in (test/fakes/stripe.ts), and its webhook deliveries signed as Stripe signs them. */
const WEBHOOK_SECRET = 'whsec_test_faults';

export const stripeSettings = (stripeUrl: string): Env => ({
  STRIPE_SECRET_KEY: 'sk_test_faults',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_PUBLISHABLE_KEY: 'pk_test_faults',
  STRIPE_API_URL: stripeUrl,
});

/** A checkout.session.completed event for a session, as Stripe sends it, under an id of its own. */
export function paidEvent(sessionId: string): string {
  return JSON.stringify({
    id: `evt_faults_${randomBytes(8).toString('hex')}`,
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

/**
 * Delivers an event as Stripe does, signed at `now` (the server's clock, which a test may
 * have moved); resolves to the status, or 0 when no server answered.
 */
export function deliver(baseUrl: string, payload: string, now = new Date()): Promise<number> {
  const timestamp = Math.floor(now.getTime() / 1000);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET, timestamp });
  return fetch(`${baseUrl}/api/v1/billing/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': signature },
    body: payload,
  }).then(
    (response) => response.status,
    () => 0,
  );
}

/** Starts a 100 Ds checkout for `buyer`; returns the session's id. */
export async function startPurchase(api: Client, buyer: TestUser): Promise<string> {
  const started = await api.post<{ checkoutUrl: string }>('/api/v1/billing/purchase', {
    body: checkoutBody({ packId: 'pack_100' }),
    headers: session(buyer),
  });
  expect(started.status).toBe(200);
  return started.body.checkoutUrl.split('/').pop() as string;
}

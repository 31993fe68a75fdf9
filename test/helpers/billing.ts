import { expect } from 'vitest';
import type { Balance, Transaction } from '../../src/sdk/types.js';
import { session, type TestUser } from './factories.js';
import type { Client } from './http.js';

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

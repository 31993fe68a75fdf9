import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import {
  type AppPage,
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  openSection,
  screenshot,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

// The test server grants SIGNUP_CREDITS=1000 at sign-up.
const test = withBrowserApp();

interface Balance {
  balance: number;
}
interface Ledger {
  transactions: { id: number; amount: number; type: string; description: string; paymentSessionId: string | null }[];
}

/** What the server holds, asked with the page's own session cookie. */
async function serverJson<T>(page: Page, path: string): Promise<T> {
  const response = await page.request.get(path, { headers: { 'x-skillet-app': '1' } });
  expect(response.status()).toBe(200);
  return (await response.json()) as T;
}

const regionText = (app: AppPage, name: string) => app.page.getByRole('region', { name }).textContent();

async function openBilling(app: AppPage): Promise<void> {
  await openSection(app, 'Billing');
  await app.page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
  await expect.poll(() => regionText(app, 'Balance')).toContain('1,000 Ds');
  await expect.poll(() => regionText(app, 'Transactions')).toContain('+1,000 Ds');
}

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('billing (%s)', (viewport) => {
  test('buying a pack through the local checkout grows the balance and lists the purchase', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await openBilling(app);
    expect(await regionText(app, 'Your mode')).toContain('Pay as you go');
    await expectAccessible(app, 'billing');

    await app.page.getByRole('button', { name: 'Buy 100 Ds for $1.00' }).click();
    await app.page.waitForURL(/\/billing\/checkout\/cs_local_/);
    await app.page.getByRole('heading', { name: 'Test checkout' }).waitFor();
    await app.page.getByRole('button', { name: 'Pay $1.00' }).click();

    await app.page.waitForURL((url) => url.pathname === '/app/billing' && url.searchParams.get('checkout') === 'success');
    await app.page.getByText('Payment received: 100 Ds added to your balance.').waitFor();
    await expect.poll(() => regionText(app, 'Balance')).toContain('1,100 Ds');
    // The entries (not the header row, which the phone layout hides): the purchase above the sign-up grant.
    const rows = app.page.getByRole('region', { name: 'Transactions' }).getByRole('row').filter({ hasText: ' Ds' });
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.nth(0).textContent()).toContain('Bought 100 Ds (pack_100)');
    expect(await rows.nth(0).textContent()).toContain('+100 Ds');
    expect(await rows.nth(1).textContent()).toContain('+1,000 Ds');

    expect((await serverJson<Balance>(app.page, '/api/v1/billing/balance')).balance).toBe(1100);
    const [newest] = (await serverJson<Ledger>(app.page, '/api/v1/billing/transactions')).transactions;
    expect(newest).toMatchObject({ type: 'purchase', amount: 100, description: 'Bought 100 Ds (pack_100)' });
    expect(newest?.paymentSessionId).toMatch(/^cs_local_/);

    await expectAccessible(app, 'billing after a purchase');
    await screenshot(app, 'billing-purchased');
    await app.page.getByRole('button', { name: 'Dismiss' }).click();
    await app.page.waitForURL((url) => url.pathname === '/app/billing' && url.search === '');
    expect(await app.page.getByText('Payment received').count()).toBe(0);
    expectNoPageErrors(app);
  });

  test('coming back before the payment is confirmed: the page waits, then shows the grant when it lands', async ({
    openPage,
  }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await openBilling(app);
    await app.page.getByRole('button', { name: 'Buy 500 Ds for $4.25' }).click();
    await app.page.getByRole('heading', { name: 'Test checkout' }).waitFor();
    const checkoutUrl = app.page.url();

    // As when a provider sends the person back before its webhook arrives.
    await app.page.goto('/app/billing?checkout=success');
    await app.page.getByText('Waiting for the payment provider to confirm it').waitFor();
    await expect.poll(() => regionText(app, 'Balance')).toContain('1,000 Ds');
    await screenshot(app, 'billing-confirming');

    const paid = await app.page.request.post(`${checkoutUrl}/pay`, { maxRedirects: 0 });
    expect(paid.status()).toBe(303);
    await app.page.getByText('Payment received: 500 Ds added to your balance.').waitFor({ timeout: 15_000 });
    await expect.poll(() => regionText(app, 'Balance')).toContain('1,500 Ds');
    expect((await serverJson<Balance>(app.page, '/api/v1/billing/balance')).balance).toBe(1500);
    await expectAccessible(app, 'billing while a payment is confirmed');
    expectNoPageErrors(app);
  });

  test('a cancelled checkout says so and leaves the balance as it was', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await openBilling(app);
    const before = await serverJson<Ledger>(app.page, '/api/v1/billing/transactions');

    await app.page.getByRole('button', { name: 'Buy 250 Ds for $2.25' }).click();
    await app.page.getByRole('heading', { name: 'Test checkout' }).waitFor();
    await app.page.getByRole('button', { name: 'Cancel' }).click();

    await app.page.waitForURL((url) => url.pathname === '/app/billing' && url.searchParams.get('checkout') === 'cancelled');
    await app.page.getByText('Checkout cancelled: nothing was charged and your balance is unchanged.').waitFor();
    await expect.poll(() => regionText(app, 'Balance')).toContain('1,000 Ds');
    expect(await regionText(app, 'Balance')).not.toContain('1,250');
    expect((await serverJson<Balance>(app.page, '/api/v1/billing/balance')).balance).toBe(1000);
    expect(await serverJson<Ledger>(app.page, '/api/v1/billing/transactions')).toEqual(before);

    await expectAccessible(app, 'billing after a cancelled checkout');
    await screenshot(app, 'billing-cancelled');
    expectNoPageErrors(app);
  });

  test('a BYOK key is refused with the server’s reason, saved as a masked preview only, and removed', async ({ openPage }) => {
    const app = await openPage(viewport);
    // Every response body the page receives, to prove the key never comes back.
    const bodies: Promise<string>[] = [];
    app.page.on('response', (response) => {
      bodies.push(response.text().catch(() => ''));
    });
    await signUpInApp(app);
    await openBilling(app);
    const byok = app.page.getByRole('region', { name: 'Your own model key' });
    await expect.poll(() => byok.textContent()).toContain('No key stored.');

    const field = app.page.getByLabel('Provider key');
    expect(await field.getAttribute('type')).toBe('password');
    await field.fill('pk-live-not-a-model-key-1234567890');
    await app.page.getByRole('button', { name: 'Save key' }).click();
    await app.page.getByRole('alert').filter({ hasText: 'key must be an sk- model provider key' }).waitFor();
    // That refusal's 400 is shown in the form; Chromium also logs the failed fetch.
    app.errors.splice(0, app.errors.length, ...app.errors.filter((error) => !error.includes('400')));

    const secret = `sk-ant-api03-${crypto.randomUUID().replaceAll('-', '')}QZ9x`;
    await field.fill(secret);
    await app.page.getByRole('button', { name: 'Save key' }).click();
    await app.page.getByText('Key saved.').waitFor();
    await expect.poll(() => byok.textContent()).toContain('sk-ant-…QZ9x');
    expect(await byok.textContent()).toContain('Anthropic');
    expect(await field.inputValue()).toBe('');
    await expect.poll(() => regionText(app, 'Your mode')).toContain('You are on Bring your own key');

    // The key is nowhere in the page: not in the markup, not in any field, not in storage.
    expect(await app.page.content()).not.toContain(secret);
    const fieldValues = await app.page.evaluate(
      "Array.from(document.querySelectorAll('input, textarea'), (field) => field.value)",
    );
    expect(JSON.stringify(fieldValues)).not.toContain(secret);
    const stored = await app.page.evaluate('JSON.stringify(localStorage) + JSON.stringify(sessionStorage)');
    expect(stored).not.toContain(secret);
    const status = await serverJson<{ hasKey: boolean; keyPreview: string; provider: string }>(app.page, '/api/v1/byok');
    expect(status).toEqual({ hasKey: true, keyPreview: 'sk-ant-…QZ9x', provider: 'anthropic' });

    await expectAccessible(app, 'billing with a BYOK key');
    await screenshot(app, 'billing-byok');

    await app.page.getByRole('button', { name: 'Remove key' }).click();
    await app.page.getByRole('button', { name: 'Yes, remove the key' }).click();
    await app.page.getByText('Key removed.').waitFor();
    await expect.poll(() => byok.textContent()).toContain('No key stored.');
    await expect.poll(() => regionText(app, 'Your mode')).toContain('You are on Pay as you go');
    expect(await serverJson(app.page, '/api/v1/byok')).toEqual({ hasKey: false, keyPreview: null, provider: null });

    const received = await Promise.all(bodies);
    expect(received.length).toBeGreaterThan(5);
    for (const body of received) expect(body).not.toContain(secret);
    expectNoPageErrors(app);
  });

  test('subscribing to Based from the Billing page; then the packs show their 20% discount; cancelling keeps Based to the month’s end', async ({
    openPage,
  }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await openBilling(app);
    const mode = app.page.getByRole('region', { name: 'Your mode' });
    await mode.getByText('unlimited keys and MCP for editors and agents').waitFor();
    await mode.getByRole('button', { name: 'Subscribe to Based ($29.00 / month)' }).click();
    await app.page.waitForURL(/\/billing\/checkout\/cs_local_/);
    await app.page.getByRole('heading', { name: 'Test checkout' }).waitFor();
    await app.page.getByRole('button', { name: 'Pay $29.00' }).click();
    await app.page.waitForURL((url) => url.pathname === '/app/billing' && url.searchParams.get('checkout') === 'success');
    await app.page.getByText(/Payment received: 2,000 Ds added/).waitFor();

    await expect.poll(() => regionText(app, 'Your mode')).toContain('You are on Based');
    await mode.getByText(/^Your Based subscription renews every month; this month is paid until /).waitFor();
    expect(await mode.getByRole('button', { name: /Subscribe/ }).count()).toBe(0);
    await expect.poll(() => regionText(app, 'Balance')).toContain('3,000 Ds');
    const packs = app.page.getByRole('region', { name: 'Buy credits' });
    await packs.getByText('takes 20% off every pack').waitFor();
    await packs.getByRole('button', { name: 'Buy 100 Ds for $0.80' }).waitFor();
    await packs.getByRole('button', { name: 'Buy 5,000 Ds for $30.00' }).waitFor();

    await expect.poll(() => regionText(app, 'Transactions')).toContain('Based subscription started: 2000 Ds');
    expect(await regionText(app, 'Transactions')).not.toMatch(/subscription subscription|basedmode/);
    await expectAccessible(app, 'billing on Based');
    await screenshot(app, 'billing-based');

    await mode.getByRole('button', { name: 'Cancel subscription' }).click();
    await mode.getByRole('button', { name: 'Yes, stop renewing' }).click();
    await mode.getByText(/^Your subscription is cancelled and will not renew\. You keep Based and its credits until /).waitFor();
    expect(await mode.getByRole('button', { name: 'Cancel subscription' }).count()).toBe(0);
    expect(await regionText(app, 'Your mode')).toContain('You are on Based');
    expect(await serverJson(app.page, '/api/v1/billing/subscription')).toMatchObject({ subscribed: true, renews: false });
    await expectAccessible(app, 'billing on Based, cancelled');
    await screenshot(app, 'billing-based-cancelled');
    expectNoPageErrors(app);
  });
});

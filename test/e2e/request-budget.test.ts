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

// The shipped limits (100 API requests a minute per session): the harness fails a test the server answered with a 429.
const test = withBrowserApp();

/** Every API request the page sends from now on, by path (the query left out). */
function countApiRequests(page: Page): Map<string, number> {
  const counts = new Map<string, number>();
  page.on('request', (request) => {
    const { pathname } = new URL(request.url());
    if (!pathname.startsWith('/api/')) return;
    const key = `${request.method()} ${pathname}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
  return counts;
}

const total = (counts: Map<string, number>) => [...counts.values()].reduce((sum, count) => sum + count, 0);

const regionText = (app: AppPage, name: string) => app.page.getByRole('region', { name }).textContent();

/** What a person would read as "the app refused me": an error box, or the limiter's words anywhere. */
async function expectNoRefusalShown(app: AppPage): Promise<void> {
  expect(await app.page.locator('.notice-error, [role="alert"]').allTextContents()).toEqual([]);
  expect(await app.page.locator('body').textContent()).not.toMatch(/rate limit|slow down|too many/i);
}

/** The Billing page with everything it shows loaded. */
async function billingLoaded(app: AppPage): Promise<void> {
  await app.page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
  await expect.poll(() => regionText(app, 'Balance')).toContain('Ds');
  await expect.poll(() => regionText(app, 'Transactions')).toContain('Ds');
  await app.page.getByRole('region', { name: 'Buy credits' }).getByRole('button', { name: /^Buy / }).first().waitFor();
  await app.page.getByRole('region', { name: 'Your mode' }).getByText('Bring your own key').first().waitFor();
}

/** Through the local test checkout and back to Billing, until the grant of `credits` is shown. */
async function payAndReturn(app: AppPage, credits: string): Promise<void> {
  await app.page.waitForURL(/\/billing\/checkout\/cs_local_/);
  await app.page.getByRole('heading', { name: 'Test checkout' }).waitFor();
  await app.page.getByRole('button', { name: /^Pay / }).click();
  await app.page.waitForURL((url) => url.pathname === '/app/billing' && url.searchParams.get('checkout') === 'success');
  await app.page.getByText(`Payment received: ${credits} added to your balance.`).waitFor();
}

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('the app’s own request budget (%s)', (viewport) => {
  test('loading Billing asks the server for each thing once', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    // The Skills page done loading (its first-run card asks for the balance too), so what is counted is Billing's.
    await app.page.getByRole('heading', { name: 'Start here' }).waitFor();
    await app.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const counts = countApiRequests(app.page);
    await app.page.goto('/app/billing');
    await billingLoaded(app);
    // Past the moment the live socket opens, which used to load every list a second time.
    await app.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await app.page.waitForTimeout(1500);

    const repeated = [...counts].filter(([, count]) => count > 1);
    expect(repeated, 'API requests sent more than once by one Billing load').toEqual([]);
    expect(counts.get('GET /api/v1/billing/balance')).toBe(1);
    expect(counts.get('GET /api/v1/billing/transactions')).toBe(1);
    expect(total(counts)).toBeLessThanOrEqual(12);

    // Going elsewhere and back within a few seconds reuses what was just loaded.
    counts.clear();
    await openSection(app, 'Skills');
    await app.page.getByRole('heading', { name: 'Skills', level: 1 }).waitFor();
    await openSection(app, 'Billing');
    await billingLoaded(app);
    expect(counts.get('GET /api/v1/billing/balance') ?? 0).toBe(0);
    expect(counts.get('GET /api/v1/workspaces') ?? 0).toBe(0);
    await expectNoRefusalShown(app);
    await expectAccessible(app, 'billing loaded once');
    await screenshot(app, 'billing-loaded-once');
    expectNoPageErrors(app);
  });

  test('buying a pack and subscribing within a minute shows no refusal', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    const counts = countApiRequests(app.page);
    const started = Date.now();
    await openSection(app, 'Billing');
    await billingLoaded(app);
    await app.page.getByRole('button', { name: 'Buy 100 Ds for $1.00' }).click();
    await payAndReturn(app, '100 Ds');
    await expect.poll(() => regionText(app, 'Balance')).toContain('1,100 Ds');
    await expectNoRefusalShown(app);

    await app.page.getByRole('button', { name: 'Dismiss' }).click();
    const mode = app.page.getByRole('region', { name: 'Your mode' });
    await mode.getByRole('button', { name: 'Subscribe to Based ($29.00 / month)' }).click();
    await app.page.getByRole('heading', { name: 'Test checkout' }).waitFor();
    const checkoutUrl = app.page.url();
    // Sent back before the provider's webhook, as a real provider may: the page waits for the grant.
    await app.page.goto('/app/billing?checkout=success');
    await app.page.getByText('Waiting for the payment provider to confirm it').waitFor();
    await billingLoaded(app);
    const beforeGrant = new Map(counts);
    const paid = await app.page.request.post(`${checkoutUrl}/pay`, { maxRedirects: 0 });
    expect(paid.status()).toBe(303);
    await app.page.getByText('Payment received: 2,000 Ds added to your balance.').waitFor({ timeout: 20_000 });
    await expect.poll(() => regionText(app, 'Your mode')).toContain('You are on Based');
    await expect.poll(() => regionText(app, 'Balance')).toContain('3,100 Ds');
    // The packs are asked again once the subscription shows: their prices carry its discount.
    await app.page.getByRole('button', { name: 'Buy 100 Ds for $0.80' }).waitFor();
    // While it waited, the page asked the ledger alone; the balance once, when the grant showed.
    const since = (key: string) => (counts.get(key) ?? 0) - (beforeGrant.get(key) ?? 0);
    expect(since('GET /api/v1/billing/transactions')).toBeGreaterThanOrEqual(1);
    expect(since('GET /api/v1/billing/balance')).toBe(1);
    expect(since('GET /api/v1/byok')).toBe(0);
    // And a look around the other sections afterwards, as a person checking what they bought does.
    for (const section of ['Runs', 'Keys', 'Account', 'Billing']) await openSection(app, section);
    await billingLoaded(app);
    expect(Date.now() - started, 'both purchases within the minute the limit counts').toBeLessThan(60_000);
    // Half the minute's allowance at most, so what else the person does that minute still fits.
    expect(total(counts), 'API requests of the whole journey').toBeLessThanOrEqual(50);
    await expectNoRefusalShown(app);
    await expectAccessible(app, 'billing after a pack and a subscription');
    await screenshot(app, 'billing-pack-and-subscription');
    expectNoPageErrors(app);
  });

  test('ten page visits in fifteen seconds show no refusal', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    const counts = countApiRequests(app.page);
    const visits: [string, string][] = [
      ['Billing', 'Billing'],
      ['Account', 'Your account'],
      ['Keys', 'API keys'],
      ['Workspaces', 'Workspaces'],
      ['Runs', 'Runs'],
      ['Billing', 'Billing'],
      ['Artifacts', 'Artifacts'],
      ['Webhooks', 'Webhooks'],
      ['Skills', 'Skills'],
      ['Account', 'Your account'],
    ];
    const started = Date.now();
    // Full loads, as a phone does when a tab is reopened or a link followed, then moves within the app.
    for (const [index, [section, heading]] of visits.entries()) {
      if (index % 2 === 0) await app.page.goto(`/app/${section.toLowerCase()}`);
      else await openSection(app, section);
      await app.page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await app.page.waitForLoadState('networkidle');
    }
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(total(counts), 'API requests of the ten visits').toBeLessThanOrEqual(50);
    await expectNoRefusalShown(app);
    await app.page.getByRole('region', { name: 'Where you are signed in' }).getByText('This browser').waitFor();
    await expectAccessible(app, 'account after ten visits');
    await screenshot(app, 'account-after-ten-visits');
    expectNoPageErrors(app);
  });
});

import { describe, expect } from 'vitest';
import type { Client } from '../helpers/http.js';
import {
  type AppPage,
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  forgiveStatus,
  screenshot,
  sessionTokenOf,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

const test = withBrowserApp({ RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

async function signedIn(app: AppPage): Promise<string> {
  await signUpInApp(app);
  return sessionTokenOf(app);
}

const auth = (token: string) => ({ headers: { 'x-auth-token': token } });

const historyLength = async (api: Client, token: string) =>
  (await api.get<{ items: unknown[] }>('/api/v1/executions?limit=50', auth(token))).body.items.length;

const balance = async (api: Client, token: string) =>
  (await api.get<{ balance: number }>('/api/v1/billing/balance', auth(token))).body.balance;

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('a skill that declares its input (%s)', (viewport) => {
  test('ticker starts from its example, and refuses words instead of numbers before anything runs', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    const token = await signedIn(app);
    await app.page.goto('/app/skills/ticker');
    expect(await app.page.getByLabel('Input').inputValue()).toBe('10 500');

    await app.page.getByLabel('Input').fill('hello world');
    await app.page.getByRole('button', { name: 'Run', exact: true }).click();
    const refusal = app.page.getByRole('alert').filter({ hasText: 'Ticker cannot run on this input' });
    await refusal.getByText(/Give two whole numbers: how many messages \(1 to 10,000\)/).waitFor();
    expect(await refusal.textContent()).not.toMatch(/body\/|must match pattern|POST|\/api\//);
    expect(app.page.url()).toMatch(/\/app\/skills\/ticker$/);
    expect(await app.page.getByLabel('Input').inputValue()).toBe('hello world');
    expect(await historyLength(api, token)).toBe(0);
    forgiveStatus(app, 400);
    await expectAccessible(app, 'input-refused');
    await screenshot(app, 'input-refused');

    await app.page.getByLabel('Input').fill('99999 1');
    await app.page.getByRole('button', { name: 'Run', exact: true }).click();
    await refusal.waitFor();
    forgiveStatus(app, 400);
    expect(await historyLength(api, token)).toBe(0);
    expectNoPageErrors(app);
  });

  test('a skill with a form: one field each, its example filled in, and the run gets their values', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    const token = await signedIn(app);
    const before = await balance(api, token);
    await app.page.goto('/app/skills/priced-form');
    const fields = app.page.getByRole('group', { name: 'Input' });
    expect(await fields.getByLabel('City').inputValue()).toBe('Lisbon');
    expect(await fields.getByLabel('Days').inputValue()).toBe('3');
    await fields.getByText('From 1 to 14.').waitFor();
    await expectAccessible(app, 'input-form');
    await screenshot(app, 'input-form');

    // Out of range: the browser holds the form back, so nothing reaches the server.
    await fields.getByLabel('Days').fill('30');
    await app.page.getByRole('button', { name: 'Run', exact: true }).click();
    expect(await app.page.locator('#skill-field-days:invalid').count()).toBe(1);
    expect(await historyLength(api, token)).toBe(0);

    await fields.getByLabel('City').fill('Porto');
    await fields.getByLabel('Days').fill('2');
    await fields.getByLabel('Units').selectOption('imperial');
    await app.page.getByRole('button', { name: 'Run', exact: true }).click();
    await app.page.waitForURL(/\/app\/runs\/[^/]+$/);
    await app.page.getByText('Porto for 2 days in imperial').waitFor();
    await app.page.getByText('Completed', { exact: true }).waitFor();
    expect(await balance(api, token)).toBe(before - 3);
    expectNoPageErrors(app);
  });
});

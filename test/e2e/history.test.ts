import { describe, expect } from 'vitest';
import { signUp } from '../helpers/factories.js';
import type { Client } from '../helpers/http.js';
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

const test = withBrowserApp();

interface HistoryItem {
  executionId: string;
  status: string;
  source: string;
  interface: string;
  inputText: string;
}

async function tokenOf(app: AppPage): Promise<string> {
  const cookie = (await app.page.context().cookies()).find((each) => each.name === 'skillet_session');
  expect(cookie).toBeDefined();
  return cookie?.value as string;
}

/** A ticker run started over the API (as a CI job would), waited on until it completes. */
async function runOverApi(api: Client, token: string, input: string, extra: Record<string, string> = {}): Promise<string> {
  const headers = { 'x-auth-token': token };
  const created = await api.post<{ id: string }>('/api/v1/executions', {
    body: { skill_slug: 'ticker', input, ...extra },
    headers,
  });
  expect(created.status).toBe(200);
  const id = created.body.id;
  const started = await api.post(`/api/v1/executions/${id}/events`, {
    body: { events: [{ type: 'user.message', content: [{ type: 'text', text: input }] }] },
    headers,
  });
  expect(started.status).toBe(200);
  await expect
    .poll(async () => (await api.get<{ status: string }>(`/api/v1/executions/${id}/status`, { headers })).body.status)
    .toBe('completed');
  return id;
}

async function history(api: Client, token: string): Promise<HistoryItem[]> {
  const reply = await api.get<{ items: HistoryItem[] }>('/api/v1/executions?limit=100', { headers: { 'x-auth-token': token } });
  expect(reply.status).toBe(200);
  return reply.body.items;
}

/** The history table's runs: the rows that link to a run (the header row has no link). */
function runRows(app: AppPage) {
  return app.page.getByRole('row').filter({ has: app.page.getByRole('link') });
}

async function openRuns(app: AppPage): Promise<void> {
  await openSection(app, 'Runs');
  await app.page.getByRole('heading', { name: 'Runs', level: 1 }).waitFor();
}

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('run history (%s)', (viewport) => {
  test('lists the workspace’s runs, filters them by channel and interface in the URL, and pages', async ({ openPage, api }) => {
    const stranger = await signUp(api);
    // Ticker takes two numbers only: each run's pair is what tells it apart on the page.
    await runOverApi(api, stranger.token, '7 1');
    const app = await openPage(viewport);
    await signUpInApp(app);
    const token = await tokenOf(app);
    // One run from the app itself, two from a CI job over the API.
    await app.page.getByRole('link', { name: 'Run Ticker' }).click();
    await app.page.getByRole('heading', { name: 'Ticker', level: 2 }).waitFor();
    await expectAccessible(app, 'skill');
    await screenshot(app, 'skill');
    await app.page.getByLabel('Input').fill('2 10');
    await app.page.getByRole('button', { name: 'Run', exact: true }).click();
    await app.page.getByText('Completed', { exact: true }).waitFor();
    await runOverApi(api, token, '1 0', { interface: 'ci-bot' });
    await runOverApi(api, token, '1 1', { interface: 'ci-bot' });
    const held = await history(api, token);
    expect(held.map((item) => [item.source, item.interface])).toEqual([
      ['api', 'ci-bot'],
      ['api', 'ci-bot'],
      ['app', 'api'],
    ]);

    await openRuns(app);
    await expect.poll(() => runRows(app).count()).toBe(3);
    expect(await app.page.getByText('7 1').count()).toBe(0);

    await app.page.getByLabel('Channels').fill('app');
    await app.page.getByRole('button', { name: 'Apply filters' }).click();
    await app.page.waitForURL(/\/app\/runs\?channels=app$/);
    await expect.poll(() => runRows(app).count()).toBe(1);
    await runRows(app).getByText('2 10').waitFor();
    // The filter lives in the URL: a reload keeps it, in the list and in the form.
    await app.page.reload();
    await runRows(app).first().waitFor();
    expect(await runRows(app).count()).toBe(1);
    expect(await app.page.getByLabel('Channels').inputValue()).toBe('app');

    await app.page.getByRole('button', { name: 'Clear filters' }).click();
    await app.page.getByLabel('Interfaces').fill('ci-bot');
    await app.page.getByRole('button', { name: 'Apply filters' }).click();
    await app.page.waitForURL(/\/app\/runs\?interfaces=ci-bot$/);
    await expect.poll(() => runRows(app).count()).toBe(2);
    await expectAccessible(app, 'runs');
    await screenshot(app, 'runs');

    // Pages of two: the newest two, then the oldest one.
    await app.page.goto('/app/runs?limit=2');
    await expect.poll(() => runRows(app).count()).toBe(2);
    expect(await app.page.getByRole('button', { name: 'Newer runs' }).isDisabled()).toBe(true);
    await app.page.getByRole('button', { name: 'Older runs' }).click();
    await app.page.waitForURL(/\/app\/runs\?limit=2&offset=2$/);
    await expect.poll(() => runRows(app).count()).toBe(1);
    expect(await app.page.getByRole('button', { name: 'Older runs' }).isDisabled()).toBe(true);

    // Each row opens its run.
    await runRows(app).getByRole('link', { name: 'Ticker' }).click();
    await app.page.getByRole('heading', { name: 'Run', level: 1 }).waitFor();
    expect(app.page.url()).toContain(`/app/runs/${held[2]?.executionId}`);
    await app.page.getByText('Completed', { exact: true }).waitFor();
    expectNoPageErrors(app);
  });

  test('rerun with an edited input starts a new run and shows it live', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    const token = await tokenOf(app);
    const parent = await runOverApi(api, token, '2 10');
    await openRuns(app);
    await app.page.getByRole('button', { name: 'Rerun Ticker (2 10)' }).click();
    const input = app.page.getByLabel('Input for the rerun');
    expect(await input.inputValue()).toBe('2 10');
    await input.fill('3 200');
    await expectAccessible(app, 'runs-rerun');
    await screenshot(app, 'runs-rerun');
    await app.page.getByRole('button', { name: 'Start rerun' }).click();
    await app.page.waitForURL(/\/app\/runs\/[^/?]+$/);
    const child = decodeURIComponent(new URL(app.page.url()).pathname.split('/').pop() as string);
    expect(child).not.toBe(parent);
    await app.page.getByText('tick 3 of 3').waitFor();
    await app.page.getByText('Completed', { exact: true }).waitFor();

    const held = await history(api, token);
    expect(held.map((item) => [item.executionId, item.inputText, item.status])).toEqual([
      [child, '3 200', 'completed'],
      [parent, '2 10', 'completed'],
    ]);
    await openRuns(app);
    await expect.poll(() => runRows(app).count()).toBe(2);
    expectNoPageErrors(app);
  });
});

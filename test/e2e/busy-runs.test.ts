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

interface Listed {
  executionId: string;
  status: string;
  inputText: string;
}

async function signedIn(app: AppPage): Promise<string> {
  await signUpInApp(app);
  return sessionTokenOf(app);
}

/** Everything the workspace's history holds, as the server says. */
async function history(api: Client, token: string): Promise<Listed[]> {
  return (await api.get<{ items: Listed[] }>('/api/v1/executions?limit=50', { headers: { 'x-auth-token': token } })).body.items;
}

async function openTicker(app: AppPage): Promise<void> {
  await app.page.goto('/app/skills/ticker');
  await app.page.getByRole('heading', { name: 'Run a skill', level: 1 }).waitFor();
}

/** Runs ticker from its screen and waits for its first tick; the run's id. */
async function startTicker(app: AppPage, input: string): Promise<string> {
  await openTicker(app);
  await app.page.getByLabel('Input').fill(input);
  await app.page.getByRole('button', { name: 'Run', exact: true }).click();
  await app.page.waitForURL(/\/app\/runs\/[^/]+$/);
  await app.page.getByText(/tick 1 of/).waitFor();
  return decodeURIComponent(new URL(app.page.url()).pathname.split('/').pop() as string);
}

/** Presses Run with `input` while another run goes; the panel that says so. */
async function pressRunWhileBusy(app: AppPage, input: string) {
  await openTicker(app);
  await app.page.getByLabel('Input').fill(input);
  await app.page.getByRole('button', { name: 'Run', exact: true }).click();
  const panel = app.page.getByRole('status').filter({ hasText: 'is going in this workspace' });
  await panel.waitFor();
  return panel;
}

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('Run while another run goes (%s)', (viewport) => {
  test('says which run is in the way, keeps the input, creates nothing, and opens that run', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    const token = await signedIn(app);
    const first = await startTicker(app, '60 300');

    const panel = await pressRunWhileBusy(app, '3 50');
    await panel.getByRole('link', { name: 'Ticker run' }).waitFor();
    expect(app.page.url()).toMatch(/\/app\/skills\/ticker$/);
    expect(await app.page.getByLabel('Input').inputValue()).toBe('3 50');
    expect((await history(api, token)).map((item) => item.executionId)).toEqual([first]);
    await expectAccessible(app, 'run-busy');
    await screenshot(app, 'run-busy');

    await panel.getByRole('link', { name: 'Open the running run' }).click();
    await app.page.waitForURL(new RegExp(`/app/runs/${first}$`));
    await app.page.getByRole('button', { name: 'Cancel' }).waitFor();
    // Back on the skill, the input typed before is still there.
    await openTicker(app);
    expect(await app.page.getByLabel('Input').inputValue()).toBe('3 50');
    await api.post(`/api/v1/executions/${first}/cancel`, { headers: { 'x-auth-token': token } });
    expectNoPageErrors(app);
  });

  test('"Cancel it and run this" stops the run in the way and starts this one', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    const token = await signedIn(app);
    const first = await startTicker(app, '60 300');
    const panel = await pressRunWhileBusy(app, '3 50');
    await panel.getByRole('button', { name: 'Cancel it and run this' }).click();
    await app.page.waitForURL((url) => /\/app\/runs\//.test(url.pathname) && !url.pathname.endsWith(first));
    await app.page.getByText('Completed', { exact: true }).waitFor();
    await app.page.getByText('tick 3 of 3').waitFor();
    const listed = await history(api, token);
    expect(listed.map((item) => [item.inputText, item.status])).toEqual([
      ['3 50', 'completed'],
      ['60 300', 'idle'],
    ]);
    expectNoPageErrors(app);
  });

  test('"Run when it finishes" waits for the run in the way, then starts this one by itself', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    const token = await signedIn(app);
    const first = await startTicker(app, '6 400');
    const panel = await pressRunWhileBusy(app, '2 50');
    await panel.getByRole('button', { name: 'Run when it finishes' }).click();
    await app.page.getByText(/Waiting for the Ticker run to finish/).waitFor();
    expect(await app.page.getByRole('button', { name: 'Run', exact: true }).isDisabled()).toBe(true);
    await expectAccessible(app, 'run-waiting');
    await screenshot(app, 'run-waiting');
    await app.page.waitForURL((url) => /\/app\/runs\//.test(url.pathname) && !url.pathname.endsWith(first), {
      timeout: 20_000,
    });
    await app.page.getByText('tick 2 of 2').waitFor();
    const listed = await history(api, token);
    expect(listed.map((item) => [item.inputText, item.status])).toEqual([
      ['2 50', 'completed'],
      ['6 400', 'completed'],
    ]);
    expectNoPageErrors(app);
  });

  test('"Stop waiting" keeps the form as it was, and starts nothing', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    const token = await signedIn(app);
    const first = await startTicker(app, '60 300');
    const panel = await pressRunWhileBusy(app, '2 50');
    await panel.getByRole('button', { name: 'Run when it finishes' }).click();
    await app.page.getByRole('button', { name: 'Stop waiting' }).click();
    await panel.getByRole('button', { name: 'Run when it finishes' }).waitFor();
    await api.post(`/api/v1/executions/${first}/cancel`, { headers: { 'x-auth-token': token } });
    // Longer than a poll of the wait: had it not stopped, it would have started the run by now.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(app.page.url()).toMatch(/\/app\/skills\/ticker$/);
    expect((await history(api, token)).map((item) => item.executionId)).toEqual([first]);
    expectNoPageErrors(app);
  });

  test('a run that starts between the check and the start: the one call is refused, nothing is made, the panel names it', async ({
    openPage,
    api,
  }) => {
    const app = await openPage(viewport);
    const token = await signedIn(app);
    const first = await startTicker(app, '60 300');
    await openTicker(app);
    await app.page.getByLabel('Input').fill('4 20');
    // The skill screen's check sees no run going (as when the other started just after it);
    // the one call's refusal then gets the server's answer, and the screen asks again.
    await app.page.route(
      /\/api\/v1\/executions\?statuses=working/,
      (route) => route.fulfill({ json: { items: [], hasMore: false, offset: 0, limit: 1 } }),
      { times: 1 },
    );
    await app.page.getByRole('button', { name: 'Run', exact: true }).click();
    const panel = app.page.getByRole('status').filter({ hasText: 'is going in this workspace' });
    await panel.getByRole('link', { name: 'Ticker run' }).waitFor();
    expect(app.page.url()).toMatch(/\/app\/skills\/ticker$/);
    expect(await app.page.getByLabel('Input').inputValue()).toBe('4 20');
    // Refused before anything was made: no idle execution waits in the history.
    expect((await history(api, token)).map((item) => item.executionId)).toEqual([first]);
    await expectAccessible(app, 'run-not-started');
    await screenshot(app, 'run-not-started');
    forgiveStatus(app, 429);

    await panel.getByRole('button', { name: 'Cancel it and run this' }).click();
    await app.page.waitForURL((url) => /\/app\/runs\//.test(url.pathname) && !url.pathname.endsWith(first));
    await app.page.getByText('tick 4 of 4').waitFor();
    await app.page.getByText('Completed', { exact: true }).waitFor();
    expect((await history(api, token))[0]).toMatchObject({ inputText: '4 20', status: 'completed' });
    expectNoPageErrors(app);
  });
});

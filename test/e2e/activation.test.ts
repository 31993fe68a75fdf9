import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect } from 'vitest';
import type { ManualClock } from '../../src/clock.js';
import { buildProject } from '../helpers/build.js';
import { runCli } from '../helpers/cli.js';
import { startActivation } from '../helpers/factories.js';
import {
  type AppPage,
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  forgiveStatus,
  openSection,
  screenshot,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

// The server's clock stands still while the CLI polls in real time: a roomy poll burst keeps it from 429s.
const test = withBrowserApp({ ACTIVATION_POLL_INTERVAL_SECONDS: '1', RATE_LIMIT_POLL_BURST: '1000' })
  // The project compiled once for the file, so `skillet login` runs as the real process.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
  .extend('build', { scope: 'file' }, async ({}, { onCleanup }) => {
    const build = await buildProject();
    onCleanup(() => build.remove());
    return build;
  });

// Compiling takes longer than a test may: naming `build` here sets it up ahead, with a budget of its own.
// biome-ignore lint/correctness/noUnusedFunctionParameters: Vitest sets up the fixtures a hook names.
test.beforeAll(({ build }) => {}, 120_000);

/**
 * The page's clock starts where the server's ManualClock stands, so the countdown the page
 * draws from expires_at means what it would with real clocks on both sides.
 */
async function openInServerTime(
  openPage: (viewport: ViewportName) => Promise<AppPage>,
  viewport: ViewportName,
  clock: ManualClock,
) {
  const app = await openPage(viewport);
  await app.page.clock.install({ time: clock.now() });
  await signUpInApp(app);
  return app;
}

function secondsOf(timer: string): number {
  const [minutes, seconds] = timer.split(':').map(Number);
  return (minutes ?? 0) * 60 + (seconds ?? 0);
}

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('approving a device (%s)', (viewport) => {
  test('a code the real `skillet login` started is approved in the app; the CLI signs in with a working key', async ({
    openPage,
    server,
    build,
  }) => {
    const app = await openInServerTime(openPage, viewport, server.clock);
    const configDir = await mkdtemp(path.join(tmpdir(), 'skillet-e2e-cli-'));
    try {
      // Activation creation is limited per client IP on the server's clock; every test here is 127.0.0.1.
      server.clock.advance(server.config.rateLimits.activationCreateIntervalMs);
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        SKILLET_CONFIG_DIR: configDir,
        SKILLET_URL: server.url,
        SKILLET_NO_BROWSER: '1',
      };
      delete env.SKILLET_API_KEY;
      const login = runCli(build.dir, ['login', '--label', `terminal ${viewport}`], env);
      const printed = /\(or open (\S+)\)/;
      await login.waitFor(printed);
      const url = printed.exec(login.stderr())?.[1] as string;
      expect(url.startsWith(`${server.url}/app/activate?code=`)).toBe(true);

      await app.page.goto(url);
      await app.page.getByRole('heading', { name: 'Which device is asking' }).waitFor();
      await expect.poll(() => app.page.getByText(`terminal ${viewport}`, { exact: true }).count()).toBe(1);
      expect(await app.page.getByText('as reported by the device').count()).toBe(2);
      expect(await app.page.getByText('127.0.0.1', { exact: true }).count()).toBe(1);
      // The countdown moves with the page's clock.
      const timer = app.page.getByRole('timer');
      const before = secondsOf(await timer.innerText());
      expect(before).toBeGreaterThan(500);
      await app.page.clock.fastForward(60_000);
      await expect.poll(async () => secondsOf(await timer.innerText())).toBeLessThanOrEqual(before - 60);
      await expectAccessible(app, 'activate-pending');
      await screenshot(app, 'activate-pending');

      await app.page.getByLabel('Workspace the device may act in').selectOption({ label: 'Personal' });
      await app.page.getByRole('button', { name: 'Approve' }).click();
      await app.page.getByRole('heading', { name: /^(Approved|Code already used)$/ }).waitFor();
      expect(await app.page.getByText('You approved the device for Personal').count()).toBe(1);
      await expectAccessible(app, 'activate-approved');
      await screenshot(app, 'activate-approved');

      expect(await login.exited).toBe(0);
      expect(login.stderr()).toContain('Signed in');
      const { apiKey } = JSON.parse(await readFile(path.join(configDir, 'credentials.json'), 'utf8')) as { apiKey: string };
      const me = await fetch(`${server.url}/api/v1/me`, { headers: { 'x-api-key': apiKey } });
      expect(me.status).toBe(200);

      // The device has collected its key: the same link now says so, and the key is listed.
      await app.page.reload();
      await app.page.getByRole('heading', { name: 'Code already used' }).waitFor();
      await expectAccessible(app, 'activate-consumed');
      await screenshot(app, 'activate-consumed');
      await app.page.getByRole('link', { name: 'API keys' }).first().click();
      // The device's key is named after what the device called itself and its code.
      await app.page.getByText(`terminal ${viewport} (`, { exact: false }).waitFor();
      expectNoPageErrors(app);
    } finally {
      await rm(configDir, { recursive: true, force: true });
    }
  }, 60_000);

  test('a typed code is denied; the device hears denied', async ({ openPage, server, api }) => {
    const app = await openInServerTime(openPage, viewport, server.clock);
    const activation = await startActivation(server, api, { 'x-client-label': 'Suspicious laptop' });
    await openSection(app, 'Approve a device');
    await app.page.getByRole('heading', { name: "Enter the device's code" }).waitFor();
    await expectAccessible(app, 'activate-enter');
    await screenshot(app, 'activate-enter');
    await app.page.getByLabel('Code shown on the device').fill(activation.user_code.toLowerCase());
    await app.page.getByRole('button', { name: 'Look up code' }).click();
    await app.page.getByText('Suspicious laptop', { exact: true }).waitFor();
    await app.page.getByRole('button', { name: 'Deny' }).click();
    await app.page.getByRole('heading', { name: 'Denied' }).waitFor();
    expect(await app.page.getByText('You denied the device.').count()).toBe(1);
    await expectAccessible(app, 'activate-denied');
    await screenshot(app, 'activate-denied');

    const poll = await api.post<{ status: string; api_key?: string }>('/api/v1/activate/poll', {
      body: { device_code: activation.device_code },
    });
    expect(poll.body).toEqual({ status: 'denied' });
    expectNoPageErrors(app);
  });

  test('a code left past its 600 s runs out on the page and on the server; Approve is gone', async ({
    openPage,
    server,
    api,
  }) => {
    const app = await openInServerTime(openPage, viewport, server.clock);
    const activation = await startActivation(server, api);
    await app.page.goto(`/app/activate?code=${activation.user_code}`);
    await app.page.getByRole('button', { name: 'Approve' }).waitFor();

    server.clock.advance(601_000);
    await app.page.clock.fastForward(601_000);
    await app.page.getByRole('heading', { name: 'Code expired' }).waitFor();
    expect(await app.page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await expectAccessible(app, 'activate-expired');
    await screenshot(app, 'activate-expired');
    // The server's word, not only the page's countdown.
    const confirm = await app.page.request.post('/api/v1/activate/confirm', {
      headers: { 'x-skillet-app': '1' },
      data: { code: activation.user_code },
    });
    expect(confirm.status()).toBe(410);
    expectNoPageErrors(app);
  });

  test('approving a code the server has already expired says expired (the server, not the countdown, decides)', async ({
    openPage,
    server,
    api,
  }) => {
    const app = await openInServerTime(openPage, viewport, server.clock);
    // The control-plane socket is held back (its URL refused), so nothing but the Approve
    // answer can tell the page that the code moved on.
    await app.page.route('**/api/v1/events/subscribe-url', (route) => route.fulfill({ status: 503 }));
    const activation = await startActivation(server, api);
    await app.page.goto(`/app/activate?code=${activation.user_code}`);
    await app.page.getByRole('button', { name: 'Approve', disabled: false }).waitFor();
    // Only the server's clock moves: the page still counts down when Approve is pressed.
    server.clock.advance(601_000);
    await app.page.getByRole('button', { name: 'Approve' }).click();
    await app.page.getByRole('heading', { name: 'Code expired' }).waitFor();
    const poll = await api.post('/api/v1/activate/poll', { body: { device_code: activation.device_code } });
    expect(poll.body).toEqual({ status: 'expired' });
    forgiveStatus(app, 410);
    forgiveStatus(app, 503);
    expectNoPageErrors(app);
  });

  test('an unknown code says so and offers to type another', async ({ openPage, server }) => {
    const app = await openInServerTime(openPage, viewport, server.clock);
    await app.page.goto('/app/activate?code=ZZZZ-2222');
    await app.page.getByRole('heading', { name: 'Unknown code' }).waitFor();
    expect(await app.page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await app.page.getByLabel('Code shown on the device').waitFor();
    await expectAccessible(app, 'activate-unknown');
    await screenshot(app, 'activate-unknown');
    forgiveStatus(app, 404);
    expectNoPageErrors(app);
  });

  test('approving into a chosen team workspace binds the device key there', async ({ openPage, server, api }) => {
    const app = await openInServerTime(openPage, viewport, server.clock);
    const created = await app.page.request.post('/api/v1/workspaces', {
      headers: { 'x-skillet-app': '1' },
      data: { name: `Team ${viewport}` },
    });
    const team = (await created.json()) as { id: string };
    const activation = await startActivation(server, api);
    await app.page.goto(`/app/activate?code=${activation.user_code}`);
    await app.page.getByLabel('Workspace the device may act in').selectOption({ label: `Team ${viewport} (owner)` });
    await app.page.getByRole('button', { name: 'Approve' }).click();
    await app.page.getByText(`You approved the device for Team ${viewport}.`).waitFor();
    const poll = await api.post<{ status: string; workspace?: { id: string; name: string } }>('/api/v1/activate/poll', {
      body: { device_code: activation.device_code },
    });
    expect(poll.body).toMatchObject({ status: 'approved', workspace: { id: team.id, name: `Team ${viewport}` } });
    expectNoPageErrors(app);
  });
});

import { describe, expect } from 'vitest';
import { createKey, signUp } from '../helpers/factories.js';
import { client } from '../helpers/http.js';
import {
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

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('the app shell (%s)', (viewport) => {
  test('can be used with the keyboard alone: sign up, skip to content, reach every section', async ({ openPage }) => {
    const app = await openPage(viewport);
    const { page } = app;
    await page.goto('/app/');
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // To "Create an account" by Tab, then Enter; then the form by Tab.
    for (let presses = 0; presses < 10; presses++) {
      await page.keyboard.press('Tab');
      if ((await page.evaluate('document.activeElement && document.activeElement.textContent')) === 'Create an account') break;
    }
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await page.getByLabel('Email').focus();
    await page.keyboard.type(`keys-${Date.now()}@example.test`);
    await page.keyboard.press('Tab');
    await page.keyboard.type('correct horse battery');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Skills', level: 1 }).waitFor();

    // The skip link is the first stop and moves focus to the content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content');
    const sections = ['Skills', 'Assistant', 'Runs', 'Artifacts', 'Keys', 'Billing', 'Workspaces', 'Approve a device'];
    const reached = new Set<string>();
    for (let presses = 0; presses < 30 && reached.size < sections.length; presses++) {
      await page.keyboard.press('Tab');
      const text = String(await page.evaluate('document.activeElement && document.activeElement.textContent'));
      // On a phone the sections are behind Menu: Enter opens it, and Tab goes on into them.
      if (text === 'Menu') await page.keyboard.press('Enter');
      if (sections.includes(text)) reached.add(text);
    }
    expect([...reached].sort()).toEqual([...sections].sort());
    // Enter on a focused section link routes to it.
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Billing' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    expectNoPageErrors(app);
  });

  test('shows the control plane live, and refreshes a list when another client changes it', async ({ openPage, server }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await app.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await expectAccessible(app, 'skills');
    await screenshot(app, 'shell');
    expectNoPageErrors(app);
    // A second person cannot see the first one's socket traffic; the first one's own API
    // calls from elsewhere (a CLI) do show up.
    const api = client(server.url);
    const other = await signUp(api);
    await createKey(api, other, 'someone else');
    const cookie = (await app.page.context().cookies()).find((each) => each.name === 'skillet_session')?.value as string;
    await openSection(app, 'Keys');
    await app.page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    const made = await api.post('/api/v1/keys', { body: { label: 'made by the CLI' }, headers: { 'x-auth-token': cookie } });
    expect(made.status).toBe(201);
    await app.page.getByText('made by the CLI').first().waitFor({ timeout: 5000 });
    expect(await app.page.getByText('someone else').count()).toBe(0);
    expectNoPageErrors(app);
  });

  test('is installable and starts offline from its cached shell', async ({ openPage }) => {
    const app = await openPage(viewport);
    const { page } = app;
    await page.goto('/app/');
    const manifest = (await (await page.request.get('/app/manifest.webmanifest')).json()) as {
      start_url: string;
      display: string;
      icons: { sizes: string; type: string }[];
    };
    expect(manifest).toMatchObject({ start_url: '/app/', display: 'standalone' });
    expect(manifest.icons.map((icon) => icon.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
    for (const icon of ['/app/icon-192.png', '/app/icon-512.png']) expect((await page.request.get(icon)).status()).toBe(200);

    await page.evaluate('navigator.serviceWorker.ready.then(() => true)');
    await page.reload(); // now controlled by the worker, which caches what it fetches
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.context().setOffline(true);
    await page.reload();
    await page.getByRole('heading', { name: 'Skillet' }).first().waitFor();
    await page.context().setOffline(false);
    // Offline, the session lookup fails: that one failure is expected, nothing else.
    const unexpected = app.errors.filter(
      (error) => !/Failed to fetch|ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(error),
    );
    expect(unexpected).toEqual([]);
  });
});

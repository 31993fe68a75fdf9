import { describe, expect } from 'vitest';
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

const test = withBrowserApp({ SIGNUP_CREDITS: '25' });

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('the first run (%s)', (viewport) => {
  test('a newcomer is told where to start, what they hold and what a credit is; after a run it is gone', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    const start = app.page.getByRole('region', { name: 'Start here' });
    await start.waitFor();
    expect(await start.innerText()).toContain('You have 25 Ds');
    await expectAccessible(app, 'first run');
    await screenshot(app, 'first-run');

    await start.getByRole('link', { name: 'Try Ticker' }).click();
    await app.page.getByRole('heading', { name: 'Run a skill', level: 1 }).waitFor();
    await app.page.getByRole('button', { name: 'Run', exact: true }).click();
    await app.page.waitForURL(/\/app\/runs\/[^/]+$/);
    await app.page.getByText(/tick 1 of/).waitFor();

    await openSection(app, 'Skills');
    await app.page.getByRole('heading', { name: 'Skills', level: 1 }).waitFor();
    await app.page.getByRole('link', { name: 'Run Ticker' }).waitFor();
    expect(await app.page.getByRole('region', { name: 'Start here' }).count()).toBe(0);
    expectNoPageErrors(app);
  });
});

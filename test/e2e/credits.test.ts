import { describe, expect } from 'vitest';
import {
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  forgiveStatus,
  screenshot,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

// No credits at sign-up: the first priced run is refused.
const test = withBrowserApp({ SIGNUP_CREDITS: '0' });

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('out of credits (%s)', (viewport) => {
  test('a priced run refused for credits says so and leads to Billing; nothing was created', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await app.page.goto('/app/skills/priced-ticker');
    await app.page.getByLabel('Input').fill('2 10');
    await app.page.getByRole('button', { name: 'Run', exact: true }).click();
    const refusal = app.page.getByRole('alert').filter({ hasText: 'Not enough credits to run this skill' });
    await refusal.waitFor();
    forgiveStatus(app, 402);
    await expectAccessible(app, 'run-needs-credits');
    await screenshot(app, 'run-needs-credits');
    const history = await app.page.request.get('/api/v1/executions', { headers: { 'x-skillet-app': '1' } });
    expect(((await history.json()) as { items: unknown[] }).items).toEqual([]);

    await refusal.getByRole('link', { name: 'Go to Billing' }).click();
    await app.page.getByRole('heading', { name: 'Billing', level: 1 }).waitFor();
    await app.page.getByRole('button', { name: 'Subscribe to Based ($29.00 / month)' }).waitFor();
    expectNoPageErrors(app);
  });
});

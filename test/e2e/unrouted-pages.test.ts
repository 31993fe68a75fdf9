import { describe, expect } from 'vitest';
import {
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  forgiveStatus,
  screenshot,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

const test = withBrowserApp();

/**
 * A browser that opens an address nothing serves, or sends a form to a page that only shows
 * itself, gets a page in the app's frame that says so and leads back, not the API's JSON.
 */
describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('addresses a browser cannot use (%s)', (viewport) => {
  test('an unknown address and a form sent to a page answer with a page that leads back to the app', async ({ openPage }) => {
    const app = await openPage(viewport);

    const missing = await app.page.goto('/no-such-page');
    expect(missing?.status()).toBe(404);
    await app.page.getByRole('heading', { name: 'There is nothing here', level: 1 }).waitFor();
    forgiveStatus(app, 404);
    await expectAccessible(app, 'page for an unknown address');
    await screenshot(app, 'unrouted-404');

    // A form sent to the app's Skills page, which only shows itself.
    await app.page.setContent('<form method="post" action="/app/skills"><button>Send</button></form>');
    const [answer] = await Promise.all([
      app.page.waitForResponse((response) => response.url().endsWith('/app/skills')),
      app.page.getByRole('button', { name: 'Send' }).click(),
    ]);
    expect([answer.status(), answer.headers().allow]).toEqual([405, 'GET, HEAD']);
    await app.page.getByRole('heading', { name: 'This page cannot do that', level: 1 }).waitFor();
    forgiveStatus(app, 405);
    await expectAccessible(app, 'page for a form sent to a page');
    await screenshot(app, 'unrouted-405');

    await app.page.getByRole('link', { name: 'Open Skillet' }).click();
    await app.page.waitForURL((url) => url.pathname.startsWith('/app'));
    expectNoPageErrors(app);
  });
});

import { describe, expect } from 'vitest';
import { CHROMIUM, expectNoPageErrors, screenshot, VIEWPORTS, type ViewportName, withBrowserApp } from './browser.js';

const test = withBrowserApp();

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('the API reference page (%s)', (viewport) => {
  test('is served by the server itself, lists every group, and says what an operation does', async ({ openPage, server }) => {
    const app = await openPage(viewport);
    const elsewhere: string[] = [];
    app.page.on('request', (request) => {
      if (!request.url().startsWith(server.url)) elsewhere.push(request.url());
    });
    await app.page.goto('/docs/api/');
    await app.page.getByRole('heading', { name: /Skillet API/ }).waitFor();
    for (const group of ['Runs', 'Billing', 'Artifacts', 'Device activation', 'Webhooks']) {
      await app.page.locator('.opblock-tag').getByText(group, { exact: true }).first().waitFor();
    }
    await app.page.getByText('Create an execution', { exact: true }).first().waitFor();
    // An introduction first: how to authenticate, and the way to the guide.
    await app.page.getByRole('heading', { name: 'Authentication' }).waitFor();
    for (const header of ['x-api-key: sklt_live_…', 'x-auth-token: …', 'Authorization: Bearer …']) {
      await app.page.getByText(header, { exact: true }).first().waitFor();
    }
    expect(await app.page.getByRole('link', { name: 'Getting started' }).first().getAttribute('href')).toBe('/docs');
    await screenshot(app, 'api-reference');
    expect(elsewhere).toEqual([]);
    expectNoPageErrors(app);
  });
});

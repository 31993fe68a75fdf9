import { describe, expect } from 'vitest';
import {
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  openSection,
  screenshot,
  sessionTokenOf,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

const test = withBrowserApp();

/**
 * The run form starts a run in one call (issue 51, item 4): the input goes to the server
 * once, in POST /runs, and the run page follows the stream from its first event.
 */
describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('one call to a run (%s)', (viewport) => {
  test('the run form sends the input once, and the history shows what ran', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    const calls: { method: string; path: string; body: string | null }[] = [];
    app.page.on('request', (request) => {
      const url = new URL(request.url());
      if (request.method() === 'POST' && url.pathname.startsWith('/api/v1/')) {
        calls.push({ method: request.method(), path: url.pathname, body: request.postData() });
      }
    });
    await openSection(app, 'Skills');
    await app.page.getByRole('link', { name: 'Run Ticker' }).click();
    await app.page.getByRole('heading', { name: 'Run a skill', level: 1 }).waitFor();
    await app.page.getByLabel('Input').fill('3 200');
    await app.page.getByRole('button', { name: 'Run', exact: true }).click();
    await app.page.waitForURL(/\/app\/runs\/[^/]+$/);
    const id = decodeURIComponent(new URL(app.page.url()).pathname.split('/').pop() as string);
    // Every event of the run is on its page, the first ones too, though the run started before the page opened its stream.
    await app.page.getByText('Completed', { exact: true }).waitFor();
    const log = app.page.getByRole('log', { name: 'Run events' });
    await log.getByText('tick 1 of 3').waitFor();
    await log.getByText('tick 3 of 3').waitFor();

    expect(calls.map((call) => call.path)).toEqual(['/api/v1/runs']);
    expect(JSON.parse(calls[0]?.body ?? '{}')).toMatchObject({ skill_slug: 'ticker', input: '3 200' });
    const token = await sessionTokenOf(app);
    const history = await api.get<{ items: { executionId: string; inputText: string; status: string }[] }>(
      '/api/v1/executions?limit=1',
      { headers: { 'x-auth-token': token } },
    );
    expect(history.body.items[0]).toMatchObject({ executionId: id, inputText: '3 200', status: 'completed' });
    await expectAccessible(app, 'one-call-run');
    await screenshot(app, 'one-call-run');
    expectNoPageErrors(app);
  });
});

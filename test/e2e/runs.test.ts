import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { createExecution, sendMessage } from '../helpers/executions.js';
import { signUp } from '../helpers/factories.js';
import type { Client } from '../helpers/http.js';
import { openStream, type StreamEvent } from '../helpers/sse.js';
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

/**
 * A newcomer signed up through the app, and their session token: the cookie is an auth
 * token, so the test can ask the server what it holds for this person.
 */
async function signedIn(openPage: (viewport: ViewportName) => Promise<AppPage>, viewport: ViewportName) {
  const app = await openPage(viewport);
  await signUpInApp(app);
  const cookie = (await app.page.context().cookies()).find((each) => each.name === 'skillet_session');
  expect(cookie).toBeDefined();
  return { app, token: cookie?.value as string };
}

const auth = (token: string) => ({ headers: { 'x-auth-token': token } });

const serverStatus = async (api: Client, token: string, id: string) =>
  (await api.get<{ status: string }>(`/api/v1/executions/${id}/status`, auth(token))).body.status;

/** Every event the server stored, as a full replay; an idle run's stream stays open, so it ends when quiet. */
async function storedEvents(api: Client, token: string, id: string): Promise<StreamEvent[]> {
  const stream = await openStream(
    (await api.get<{ sseUrl: string }>(`/api/v1/executions/${id}/stream-token`, auth(token))).body.sseUrl,
  );
  const quiet = (async () => {
    for (let seen = -1; seen !== stream.events.length; ) {
      seen = stream.events.length;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  })();
  await Promise.race([stream.ended, quiet]);
  stream.close();
  return stream.events;
}

/** The run screen's event list, one text per event, in page order. */
/** What each event of the log says: its kind and text, without the time it shows first. */
function pageEvents(app: AppPage): Promise<string[]> {
  return app.page
    .getByRole('log', { name: 'Run events' })
    .getByRole('listitem')
    .evaluateAll((items) =>
      items.map((item) =>
        [...item.children]
          .filter((child) => child.tagName !== 'TIME')
          .map((child) => child.textContent)
          .join(''),
      ),
    );
}

const ticksOf = (texts: string[]) => texts.flatMap((text) => /tick (\d+) of/.exec(text)?.slice(1).map(Number) ?? []);

const range = (count: number) => Array.from({ length: count }, (_, index) => index + 1);

/** From the skills list, the way a person goes: Run on Ticker, an input, Run; the run's id. */
async function runTickerInApp(app: AppPage, input: string): Promise<string> {
  await openSection(app, 'Skills');
  await app.page.getByRole('link', { name: 'Run Ticker' }).click();
  await app.page.getByRole('heading', { name: 'Run a skill', level: 1 }).waitFor();
  // The skill's own example is one click away; the test then types its own input over it.
  await app.page.getByRole('button', { name: 'Use the example input' }).click();
  expect(await app.page.getByLabel('Input').inputValue()).toBe('10 500');
  return submitRun(app, input);
}

/** Fills the skill screen's input and runs it; the id of the run the app then shows. */
async function submitRun(app: AppPage, input: string): Promise<string> {
  await app.page.getByLabel('Input').fill(input);
  await app.page.getByRole('button', { name: 'Run', exact: true }).click();
  await app.page.waitForURL(/\/app\/runs\/[^/]+$/);
  return decodeURIComponent(new URL(app.page.url()).pathname.split('/').pop() as string);
}

async function expectSameAsServer(app: AppPage, api: Client, token: string, id: string): Promise<StreamEvent[]> {
  const stored = await storedEvents(api, token, id);
  const shown = await pageEvents(app);
  expect(shown).toHaveLength(stored.length);
  // Each message item reads its kind ("message") and then the text the server stored.
  const messages = stored.filter((event) => event.type === 'agent.message');
  const texts = messages.map((event) => (event.payload.content as { text: string }[]).map((block) => block.text).join('\n'));
  expect(shown.filter((text) => text.startsWith('message')).map((text) => text.slice('message'.length))).toEqual(texts);
  return stored;
}

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('running a skill (%s)', (viewport) => {
  test('runs ticker from the skills list and shows every tick live, in order, while it runs', async ({ openPage, api }) => {
    const { app, token } = await signedIn(openPage, viewport);
    await app.page.getByRole('link', { name: 'Run Ticker' }).waitFor();
    await expectAccessible(app, 'skills');
    await screenshot(app, 'skills');
    const id = await runTickerInApp(app, '8 500');
    // Mid-run: the early ticks are on the page, in order, and the server is still working.
    await app.page.getByText('tick 3 of 8').waitFor();
    expect(await app.page.getByRole('button', { name: 'Cancel' }).isEnabled()).toBe(true);
    const midway = ticksOf(await pageEvents(app));
    expect(midway).toEqual(range(midway.length));
    expect(midway.length).toBeLessThan(8);
    expect(await serverStatus(api, token, id)).toBe('working');
    await app.page.getByText('Running', { exact: true }).waitFor();
    await app.page.getByText('Completed', { exact: true }).waitFor();
    expect(ticksOf(await pageEvents(app))).toEqual(range(8));
    await expectSameAsServer(app, api, token, id);
    const result = app.page.getByRole('region', { name: 'Result' });
    await result.getByText('8 ticks, 500 ms apart').waitFor();
    await result.getByText('0 Ds').waitFor();
    expect(await app.page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    await expectAccessible(app, 'run');
    await screenshot(app, 'run');
    expectNoPageErrors(app);
  });

  test('cancelling a running run stops it, and the server agrees', async ({ openPage, api }) => {
    const { app, token } = await signedIn(openPage, viewport);
    const id = await runTickerInApp(app, '60 300');
    await app.page.getByText('tick 2 of 60').waitFor();
    await app.page.getByRole('button', { name: 'Cancel' }).click();
    await app.page.getByText('Cancelled', { exact: true }).waitFor();
    await app.page.getByText('The run was cancelled.').waitFor();
    expect(await serverStatus(api, token, id)).toBe('idle');
    const stored = await expectSameAsServer(app, api, token, id);
    expect(stored.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'interrupt' } } });
    expect(ticksOf(await pageEvents(app)).length).toBeLessThan(60);
    await expectAccessible(app, 'run-cancelled');
    await screenshot(app, 'run-cancelled');
    expectNoPageErrors(app);
  });

  test('interrupting a run, then resuming it with a follow-up message', async ({ openPage, api }) => {
    const { app, token } = await signedIn(openPage, viewport);
    const id = await runTickerInApp(app, '60 300');
    await app.page.getByText('tick 2 of 60').waitFor();
    await app.page.getByRole('button', { name: 'Interrupt' }).click();
    await app.page.getByText('Interrupted', { exact: true }).waitFor();
    expect(await serverStatus(api, token, id)).toBe('idle');
    await app.page.getByLabel('Follow-up message').fill('3 200');
    await app.page.getByRole('button', { name: 'Resume' }).click();
    await app.page.getByText('tick 3 of 3').waitFor();
    await app.page.getByText('Completed', { exact: true }).waitFor();
    expect(await serverStatus(api, token, id)).toBe('completed');
    const stored = await expectSameAsServer(app, api, token, id);
    const types = stored.map((event) => event.type);
    expect(types).toContain('user.interrupt');
    expect(types.filter((type) => type === 'session.status_running')).toHaveLength(2);
    expect(new Set(stored.map((event) => event.sequence)).size).toBe(stored.length);
    await app.page.getByRole('region', { name: 'Result' }).getByText('3 ticks, 200 ms apart').waitFor();
    await expectAccessible(app, 'run-resumed');
    await screenshot(app, 'run-resumed');
    expectNoPageErrors(app);
  });

  test('a reload mid-run shows every earlier event once and carries on', async ({ openPage, api }) => {
    const { app, token } = await signedIn(openPage, viewport);
    const id = await runTickerInApp(app, '14 300');
    await app.page.getByText('tick 4 of 14').waitFor();
    await app.page.reload();
    await app.page.getByText('tick 1 of 14').waitFor();
    expect(await serverStatus(api, token, id)).toBe('working');
    const afterReload = ticksOf(await pageEvents(app));
    expect(afterReload).toEqual(range(afterReload.length));
    expect(afterReload.length).toBeGreaterThanOrEqual(4);
    await app.page.getByText('Completed', { exact: true }).waitFor();
    expect(ticksOf(await pageEvents(app))).toEqual(range(14));
    await expectSameAsServer(app, api, token, id);
    expectNoPageErrors(app);
  });

  test('a dropped stream reconnects with a fresh URL after its last event, repeating nothing', async ({ openPage, api }) => {
    const { app, token } = await signedIn(openPage, viewport);
    const created = await api.post<{ id: string }>('/api/v1/executions', {
      body: { skill_slug: 'ticker', input: '6 100' },
      ...auth(token),
    });
    const tokens: string[] = [];
    app.page.on('request', (request) => request.url().endsWith('/stream-token') && tokens.push(request.url()));
    // The first connection is cut after four events, as a flaky network would cut it.
    const streams: string[] = [];
    await app.page.route(/\/executions\/[^/]+\/stream\?/, async (route) => {
      streams.push(route.request().url());
      if (streams.length > 1) return route.continue();
      const frames = (await (await route.fetch()).text()).split('\n\n');
      await route.fulfill({ contentType: 'text/event-stream', body: `${frames.slice(0, 5).join('\n\n')}\n\n` });
    });
    await app.page.goto(`/app/runs/${created.body.id}`);
    const message = { events: [{ type: 'user.message', content: [{ type: 'text', text: '6 100' }] }] };
    expect((await api.post(`/api/v1/executions/${created.body.id}/events`, { body: message, ...auth(token) })).status).toBe(200);
    await app.page.getByText('Run ended: finished').waitFor();
    expect(ticksOf(await pageEvents(app))).toEqual(range(6));
    expect(streams).toHaveLength(2);
    expect(streams[0]).not.toContain('lastSeq');
    expect(streams[1]).toContain('lastSeq=4');
    expect(tokens).toHaveLength(2);
    await expectSameAsServer(app, api, token, created.body.id);
    expectNoPageErrors(app);
  });

  test("another workspace's run id shows not found, and nothing of that run", async ({ openPage, api }) => {
    const other = await signUp(api);
    const theirs = await createExecution(api, other, 'text-stats', 'secret-of-the-other-workspace');
    const { app } = await signedIn(openPage, viewport);
    await app.page.goto(`/app/runs/${theirs.id}`);
    await app.page.getByText('This run was not found.').waitFor();
    expect(await app.page.getByText('secret-of-the-other-workspace').count()).toBe(0);
    expect(await app.page.getByRole('button', { name: 'Cancel' }).count()).toBe(0);
    await expectAccessible(app, 'run-not-found');
    await screenshot(app, 'run-not-found');
    await app.page.goto(`/app/runs/${'x'.repeat(150)}`);
    await app.page.getByText('This run was not found.').waitFor();
    // The 404s and 400s the page was answered are shown as "not found", not left as errors.
    app.errors.splice(0, app.errors.length, ...app.errors.filter((error) => !/\b40[04]\b/.test(error)));
    expectNoPageErrors(app);
  });

  test('a run that writes a file links to its artifact', async ({ openPage }) => {
    const { app } = await signedIn(openPage, viewport);
    await app.page.goto('/app/skills/writer');
    await submitRun(app, JSON.stringify({ files: [{ path: 'note.txt', text: 'hello from the run' }] }));
    // The file the run wrote shows as a tool use, as it happens.
    await app.page.getByText('Wrote note.txt (18 bytes)').waitFor();
    await app.page.getByText('Completed', { exact: true }).waitFor();
    await expectAccessible(app, 'run-artifact');
    await screenshot(app, 'run-artifact');
    await app.page.getByRole('region', { name: 'What it made' }).getByRole('link').first().click();
    await app.page.waitForURL(/\/app\/artifacts\/[^/]+$/);
    await app.page.getByRole('heading', { name: 'Artifact', level: 1 }).waitFor();
    expectNoPageErrors(app);
  });

  test('resuming an interrupted run of a priced skill names the price it costs again', async ({ openPage, api }) => {
    const { app, token } = await signedIn(openPage, viewport);
    await app.page.goto('/app/skills/priced-ticker');
    const id = await submitRun(app, '60 300');
    await app.page.getByText('tick 2 of 60').waitFor();
    await app.page.getByRole('button', { name: 'Interrupt' }).click();
    await app.page.getByText('Interrupted', { exact: true }).waitFor();
    await app.page.getByText("that starts a new run, which costs the skill's price again (2 Ds)").waitFor();
    await app.page.getByLabel('Follow-up message').fill('1 1');
    await app.page.getByRole('button', { name: 'Resume (2 Ds)' }).click();
    await app.page.getByText('Completed', { exact: true }).waitFor();
    expect(await serverStatus(api, token, id)).toBe('completed');
    await expectAccessible(app, 'run-resume-priced');
    expectNoPageErrors(app);
  });

  test('a run that fails says so, with the reason the server gave', async ({ openPage, api }) => {
    const { app, token } = await signedIn(openPage, viewport);
    await app.page.goto('/app/skills/crashes');
    const id = await submitRun(app, 'x');
    await app.page.getByText('Failed', { exact: true }).waitFor();
    await app.page.getByText('about to fail').waitFor();
    await app.page.getByText('deliberate crash').waitFor();
    await app.page.getByText('Run ended: error').waitFor();
    expect(await serverStatus(api, token, id)).toBe('failed');
    await expectSameAsServer(app, api, token, id);
    expect(await app.page.getByLabel('Follow-up message').count()).toBe(0);
    expectNoPageErrors(app);
  });
});

describe.runIf(CHROMIUM)('first load', () => {
  test('reports the first load size and the run screen time to interactive', async ({ openPage, api, server }) => {
    const person = await signUp(api);
    const cookie = { name: 'skillet_session', value: person.token, url: server.url, httpOnly: true, sameSite: 'Strict' as const };
    // Cold: a fresh context has no cache and no service worker yet.
    const sized = await openPage('desktop');
    await sized.page.context().addCookies([cookie]);
    const cdp = await sized.page.context().newCDPSession(sized.page);
    await cdp.send('Network.enable');
    const counted = new Set<string>();
    const encodings = new Set<string>();
    let bytes = 0;
    cdp.on('Network.responseReceived', ({ requestId, type, response }) => {
      if (!['Document', 'Script', 'Stylesheet'].includes(type)) return;
      counted.add(requestId);
      encodings.add(Object.entries(response.headers).find(([name]) => /^content-encoding$/i.test(name))?.[1] ?? 'identity');
    });
    cdp.on('Network.loadingFinished', (event) => {
      if (counted.has(event.requestId)) bytes += event.encodedDataLength;
    });
    // Every script and stylesheet of the page has arrived by its load event.
    await sized.page.goto('/app/', { waitUntil: 'load' });
    await sized.page.getByRole('link', { name: 'Run Ticker' }).waitFor();

    // The run screen of a run under way, opened cold.
    const created = await createExecution(api, person, 'ticker', '200 250');
    expect((await sendMessage(api, person, created.id, '200 250')).status).toBe(200);
    const timed = await openPage('desktop');
    await timed.page.context().addCookies([cookie]);
    await timed.page.goto(`/app/runs/${created.id}`, { waitUntil: 'commit' });
    // Watched from inside the page (a string, as page script: the page's CSP refuses eval).
    const readyAt = await timed.page.evaluate(`new Promise((resolve) => {
      const ready = () => [...document.querySelectorAll('button')].some((b) => b.textContent === 'Cancel' && !b.disabled)
        && document.querySelector('[role="log"] li') && (resolve(performance.now()), true);
      if (!ready()) new MutationObserver((_, watcher) => ready() && watcher.disconnect())
        .observe(document, { subtree: true, childList: true, attributes: true });
    })`);
    const ttiMs = Math.round(readyAt as number);
    const metrics = { firstLoadBytes: bytes, encodings: [...encodings], runScreenTtiMs: ttiMs };
    console.log(`APP METRICS ${JSON.stringify(metrics)}`);
    await mkdir(path.join(PROJECT_ROOT, 'test-results'), { recursive: true });
    await writeFile(path.join(PROJECT_ROOT, 'test-results', 'app-metrics.json'), `${JSON.stringify(metrics, null, 2)}\n`);
    await api.post(`/api/v1/executions/${created.id}/cancel`, auth(person.token));
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThan(100 * 1024);
    // The time is reported, not asserted: a loaded CI machine says nothing about the app.
    // `BENCH_ONLY=app npm run bench` holds it to its 1 s target beside a bare page.
    expect(ttiMs).toBeGreaterThan(0);
    expectNoPageErrors(sized);
    expectNoPageErrors(timed);
  });
});

import { describe, expect } from 'vitest';
import {
  type AppPage,
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  screenshot,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

const test = withBrowserApp({ RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

async function runFromSkill(app: AppPage, slug: string, input: string): Promise<void> {
  await app.page.goto(`/app/skills/${slug}`);
  await app.page.getByLabel('Input').fill(input);
  await app.page.getByRole('button', { name: 'Run', exact: true }).click();
  await app.page.waitForURL(/\/app\/runs\/[^/]+$/);
}

/** Where a region's heading sits on the page, top to bottom. */
const topOf = async (app: AppPage, heading: string) =>
  (await app.page.getByRole('heading', { name: heading, level: 2 }).boundingBox())?.y ?? Number.NaN;

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('the run page (%s)', (viewport) => {
  test('leads with the result, how long it took and what the run made, shown, then the events with their times', async ({
    openPage,
  }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    const input = JSON.stringify({ files: [{ path: 'note.txt', text: 'hello from the run' }] });
    await runFromSkill(app, 'writer', input);
    await app.page.getByText('Completed', { exact: true }).waitFor();
    const made = app.page.getByRole('region', { name: 'What it made' });
    await made.getByText(/text\/plain · 18 B/).waitFor();
    expect(await made.getByRole('link').first().textContent()).not.toMatch(/^Artifact [0-9a-f]{8}$/);
    expect(await topOf(app, 'Result')).toBeLessThan(await topOf(app, 'Events'));
    expect(await topOf(app, 'What it made')).toBeLessThan(await topOf(app, 'Events'));
    // The file itself, where the result is; how long the run took; when each event happened.
    await made.locator('pre').getByText('hello from the run').waitFor();
    const result = app.page.getByRole('region', { name: 'Result' });
    expect(await result.textContent()).toMatch(/Took\d+(\.\d)? (ms|s)/);
    const log = app.page.getByRole('log', { name: 'Run events' });
    const stamped = async () => ({
      events: await log.getByRole('listitem').count(),
      times: (await log.locator('time').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('datetime')))).filter(
        (at) => at !== null && !Number.isNaN(Date.parse(at)),
      ).length,
    });
    const live = await stamped();
    expect(live.times).toBe(live.events);
    // A replay arrives in one burst: its times are the ones stored with the events.
    await app.page.reload();
    await app.page.getByText('Completed', { exact: true }).waitFor();
    await expect.poll(async () => (await stamped()).times).toBe(live.events);
    await made.locator('pre').getByText('hello from the run').waitFor();
    await expectAccessible(app, 'run-result-first');
    await screenshot(app, 'run-result-first');
    expectNoPageErrors(app);
  });

  test('"Run again" opens the skill with this input; the snippets run this same input', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await runFromSkill(app, 'ticker', '3 20');
    await app.page.getByText('Completed', { exact: true }).waitFor();
    const again = app.page.getByRole('region', { name: 'Run it again' });
    await again.getByText('Run this from a terminal or from code').click();
    const snippets = await again.locator('pre').allTextContents();
    expect(snippets[0]).toBe("skillet run ticker '3 20'");
    expect(snippets[1]).toContain('"skill_slug":"ticker","input":"3 20"');
    // One call to the result, the input sent once (issue 51, item 4).
    expect(snippets[1]).toContain('/api/v1/runs');
    expect(snippets[1]).toContain("-H 'Prefer: wait'");
    expect(snippets[1]).not.toContain('/events');
    await again.getByRole('button', { name: 'Copy the command' }).waitFor();
    await expectAccessible(app, 'run-again');
    await screenshot(app, 'run-again');

    await again.getByRole('button', { name: 'Run again' }).click();
    await app.page.waitForURL(/\/app\/skills\/ticker$/);
    expect(await app.page.getByLabel('Input').inputValue()).toBe('3 20');
    expectNoPageErrors(app);
  });

  test('a failed run offers to run again too', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await runFromSkill(app, 'crashes', 'go');
    await app.page.getByText('Failed', { exact: true }).waitFor();
    await app.page.getByRole('region', { name: 'Run it again' }).getByRole('button', { name: 'Run again' }).click();
    await app.page.waitForURL(/\/app\/skills\/crashes$/);
    expect(await app.page.getByLabel('Input').inputValue()).toBe('go');
    expectNoPageErrors(app);
  });

  test('the event log keeps up with a long run, and stays put once scrolled up', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await runFromSkill(app, 'ticker', '200 30');
    const log = app.page.getByRole('log', { name: 'Run events' });
    await app.page.getByText('tick 60 of 200').waitFor();
    type Box = { scrollHeight: number; scrollTop: number; clientHeight: number };
    const gap = () =>
      log.evaluate((el) => {
        const box = el as unknown as Box;
        return box.scrollHeight - box.scrollTop - box.clientHeight;
      });
    await expect.poll(gap).toBeLessThan(40);
    await log.evaluate((el) => {
      (el as unknown as Box).scrollTop = 0;
    });
    await app.page.getByText('tick 120 of 200').waitFor();
    expect(await log.evaluate((el) => (el as unknown as Box).scrollTop)).toBe(0);
    await app.page.getByRole('button', { name: 'Cancel' }).click();
    await app.page.getByText('Cancelled', { exact: true }).waitFor();
    expectNoPageErrors(app);
  });
});

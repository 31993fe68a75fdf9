import { describe, expect } from 'vitest';
import {
  type AppPage,
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  screenshot,
  sessionTokenOf,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

/**
 * Files and prices people can trust, and a run page that explains itself (issue 51, items 3
 * and 7): an agent skill's price says its model use, about N Ds a run, as an estimate (0 Ds on
 * a key of your own); the files drop zone is offered only where the skill reads files; a run
 * shows its elapsed time, says what Cancel and Interrupt do, and offers its result for download
 * beside the preview, with a word in its place while the preview loads.
 */

// The elapsed time is counted from the run's stored start on the page's clock: the server's
// clock starts at the real time here, as a real server's does.
const test = withBrowserApp(
  { RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000', ANTHROPIC_MODEL: 'claude-sonnet-4-6' },
  { clockStart: new Date() },
);

async function runFromSkill(app: AppPage, slug: string, input: string): Promise<void> {
  await app.page.goto(`/app/skills/${slug}`);
  await app.page.getByLabel('Input').fill(input);
  await app.page.getByRole('button', { name: 'Run', exact: true }).click();
  await app.page.waitForURL(/\/app\/runs\/[^/]+$/);
}

const cardOf = (app: AppPage, name: string) =>
  app.page.getByRole('listitem').filter({ has: app.page.getByRole('heading', { name, exact: true }) });

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('prices and files (%s)', (viewport) => {
  test('an agent skill is priced with its model use, said to be an estimate; files only where the skill reads them', async ({
    openPage,
  }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await cardOf(app, 'chart').waitFor();
    expect(await cardOf(app, 'chart').locator('.badge').textContent()).toMatch(/^Model use \(about \d+ Ds a run\)$/);
    expect(await cardOf(app, 'report-writer').locator('.badge').textContent()).toMatch(
      /^1 Ds \+ model use \(about \d+ Ds a run\)$/,
    );
    expect(await cardOf(app, 'Ticker').locator('.badge').textContent()).toBe('Free');
    expect(await cardOf(app, 'QR code').locator('.badge').textContent()).toBe('1 Ds per run');
    await expectAccessible(app, 'skills-prices');
    await screenshot(app, 'skills-prices');

    await app.page.goto('/app/skills/chart');
    const facts = app.page.locator('.skill-facts');
    await facts.getByText(/about \d+ Ds a run/).waitFor();
    expect(await facts.textContent()).toMatch(/claude-sonnet-4-6.*an estimate/);
    await app.page.getByText('Files (optional)').waitFor();
    await expectAccessible(app, 'skill-agent-price');
    await screenshot(app, 'skill-agent-price');

    await app.page.goto('/app/skills/ticker');
    await app.page.getByLabel('Input').waitFor();
    expect(await app.page.getByText('Files (optional)').count()).toBe(0);
    expect(await app.page.locator('.skill-facts').textContent()).toContain('Free');
    expectNoPageErrors(app);
  });

  test('with a model key of your own, model use is said to cost you 0 Ds', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    const stored = await api.put('/api/v1/byok', {
      body: { key: `sk-ant-${'e'.repeat(40)}` },
      headers: { 'x-auth-token': await sessionTokenOf(app) },
    });
    expect(stored.status).toBe(200);
    await app.page.goto('/app/skills/report-writer');
    await app.page.locator('.skill-facts').getByText('1 Ds + model use on your own key (0 Ds)').waitFor();
    expect(await app.page.locator('.skill-facts').textContent()).toContain('cost you 0 Ds here');
    expectNoPageErrors(app);
  });
});

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('the run page explains itself (%s)', (viewport) => {
  test('counts the elapsed time while a run goes, says what Cancel and Interrupt do, and shows the total once it ends', async ({
    openPage,
  }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await runFromSkill(app, 'ticker', '150 100');
    await app.page.getByText('tick 5 of 150').waitFor();
    const facts = app.page.locator('.run-head .run-facts');
    await facts.getByText('Elapsed').waitFor();
    const seconds = async () =>
      Number((await facts.locator('.run-elapsed').textContent())?.match(/^(\d+) s$/)?.[1] ?? Number.NaN);
    const first = await seconds();
    expect(first).toBeGreaterThanOrEqual(0);
    await expect.poll(seconds, { timeout: 5000 }).toBeGreaterThan(first);
    const cancel = app.page.getByRole('button', { name: 'Cancel' });
    const interrupt = app.page.getByRole('button', { name: 'Interrupt' });
    // Each button is described by what it does, so a screen reader says it with the button.
    expect(await app.page.locator(`#${await cancel.getAttribute('aria-describedby')}`).textContent()).toMatch(
      /Stops the run now/,
    );
    expect(await app.page.locator(`#${await interrupt.getAttribute('aria-describedby')}`).textContent()).toMatch(
      /follow-up message/,
    );
    await expectAccessible(app, 'run-running-controls');
    await screenshot(app, 'run-running-controls');

    await interrupt.click();
    await app.page.getByText('Interrupted', { exact: true }).waitFor();
    await facts.getByText('Took').waitFor();
    expect(await facts.getByText('Elapsed').count()).toBe(0);
    // Ended: the total stays put (once the stored times have come in, which end the count).
    await app.page.waitForTimeout(1000);
    const took = await facts.locator('.run-elapsed').textContent();
    await app.page.waitForTimeout(1500);
    expect(await facts.locator('.run-elapsed').textContent()).toBe(took);
    await app.page.getByLabel('Follow-up message').waitFor();
    expectNoPageErrors(app);
  });

  test('offers what the run made for download beside its preview, with a word in its place while it loads', async ({
    openPage,
  }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    // The artifact's details are held back, so the preview's loading state can be seen.
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await app.page.route(/\/api\/v1\/artifacts\/[^/?]+(\?.*)?$/, async (route) => {
      await held;
      await route.continue();
    });
    const input = JSON.stringify({ files: [{ path: 'note.txt', text: 'hello from the run' }] });
    await runFromSkill(app, 'writer', input);
    await app.page.getByText('Completed', { exact: true }).waitFor();
    const made = app.page.getByRole('region', { name: 'What it made' });
    await made.getByText('Loading the preview…').waitFor();
    await screenshot(app, 'run-preview-loading');
    release();
    await made.locator('pre').getByText('hello from the run').waitFor();
    expect(await made.getByText('Loading the preview…').count()).toBe(0);
    const download = made.getByRole('link', { name: 'Download' });
    expect(await download.getAttribute('href')).toMatch(/\/api\/v1\/artifacts\/[^/]+\/download$/);
    const [file] = await Promise.all([app.page.waitForEvent('download'), download.click()]);
    expect(file.suggestedFilename()).toBe('note.txt');
    await expectAccessible(app, 'run-download');
    await screenshot(app, 'run-download');
    expectNoPageErrors(app);
  });
});

import { describe, expect } from 'vitest';
import { modelVendorsOfFile } from '../helpers/agent.js';
import { reply, startRunCall } from '../helpers/thread-plans.js';
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

const { anthropic, env } = await modelVendorsOfFile();

const test = withBrowserApp(env);

/** Starts a conversation from the Assistant section; the chat it lands on. */
async function startConversation(app: AppPage, message: string): Promise<void> {
  await openSection(app, 'Assistant');
  await app.page.getByRole('heading', { name: 'Assistant', level: 1 }).waitFor();
  await app.page.getByLabel('Start a conversation').fill(message);
  await app.page.getByRole('button', { name: 'Send' }).click();
  await app.page.getByRole('heading', { name: 'Conversation', level: 1 }).waitFor();
}

const conversation = (app: AppPage) => app.page.getByRole('log', { name: 'Conversation' });

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('The assistant (%s)', (viewport) => {
  test('asks before it runs a skill, runs it on Allow, and says when the run ended', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    anthropic.plan(startRunCall('ticker', '1 10'), reply('Started the ticker for you.'), reply('The ticker is done: one tick.'));
    await startConversation(app, 'Run the ticker for me');

    const log = conversation(app);
    await expect.poll(() => log.textContent()).toContain('Run the ticker for me');
    const allow = log.getByRole('button', { name: 'Allow', exact: true });
    await allow.waitFor();
    expect(await log.textContent()).toMatch(/The assistant asks toRun Ticker/);
    await app.page.getByRole('status').filter({ hasText: 'The assistant is waiting for your answer.' }).waitFor();
    await expectAccessible(app, 'assistant approval');
    await screenshot(app, 'assistant-approval');

    await allow.click();
    await log.getByText('Started the ticker for you.').waitFor();
    await log.getByText(/^The ticker run finished: /).waitFor({ timeout: 30_000 });
    await log.getByText('The ticker is done: one tick.').waitFor();
    expect(await log.getByRole('button').count()).toBe(0);
    await log.getByText(/^Started ticker\./).waitFor();
    // The result of starting it and the news of its end both lead to the run.
    expect(await log.getByRole('link', { name: 'Open the run' }).count()).toBe(2);
    const openRun = log.getByRole('link', { name: 'Open the run' }).last();
    await expectAccessible(app, 'assistant conversation');
    await screenshot(app, 'assistant-chat');
    await openRun.click();
    await app.page.getByRole('heading', { name: 'Run', level: 1 }).waitFor();
    await app.page.getByText('completed', { exact: false }).first().waitFor();

    await openSection(app, 'Assistant');
    const listed = app.page.getByRole('link', { name: 'Run the ticker for me' });
    await listed.waitFor();
    await expectAccessible(app, 'assistant list');
    await screenshot(app, 'assistant-list');
    await listed.click();
    // Reopened, the conversation is all there, the question answered.
    await conversation(app).getByText('The ticker is done: one tick.').waitFor();
    expect(await conversation(app).getByRole('button', { name: 'Allow' }).count()).toBe(0);
    expectNoPageErrors(app);
  });

  test('shows a reply as it is written, and runs nothing on Don’t allow', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    anthropic.plan(startRunCall('ticker', '1 10'), reply('All right, I will not run it.'));
    await startConversation(app, 'Tick once');
    const log = conversation(app);
    await log.getByRole('button', { name: 'Don’t allow' }).click();
    await log.getByText(/^Not allowed: Run Ticker: 1 10$/).waitFor();
    await log.getByText('All right, I will not run it.').waitFor();

    // A reply cut off mid-stream shows the words so far while the assistant is still at work.
    anthropic.plan({ kind: 'hang', blocks: [{ type: 'text', text: 'Let me think about that' }], afterEvents: 4, deltaSize: 6 });
    await app.page.getByLabel('Your message').fill('What else can you do?');
    await app.page.getByLabel('Your message').press('Enter');
    await log.getByText('What else can you do?').waitFor();
    await log.getByText(/^Let me/).waitFor();
    await app.page.getByRole('status').filter({ hasText: 'The assistant is answering…' }).waitFor();
    expect(await app.page.getByLabel('Your message').inputValue()).toBe('');
    await expectAccessible(app, 'assistant streaming');
    await screenshot(app, 'assistant-streaming');
    const runs = await app.page.request.get('/api/v1/executions', { headers: { 'x-skillet-app': '1' } });
    expect(((await runs.json()) as { items: unknown[] }).items).toEqual([]);
    expectNoPageErrors(app);
  });
});

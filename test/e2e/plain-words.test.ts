import { describe, expect } from 'vitest';
import { createExecution, sendMessage } from '../helpers/executions.js';
import { type TestUser, uniqueEmail } from '../helpers/factories.js';
import {
  type AppPage,
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  forgiveStatus,
  screenshot,
  sessionTokenOf,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

const test = withBrowserApp({ RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' });

/** What the API speaks and a person should never read: code names, methods, paths, validator text. */
const API_SPEAK =
  /paygmode|byokmode|basedmode|DORMANT|\b(GET|POST|PUT|DELETE|PATCH) \/|\/api\/v1|body\/|must NOT|must have required|Failed to fetch/;

async function pageText(app: AppPage): Promise<string> {
  return app.page.locator('body').innerText();
}

async function signedInUser(app: AppPage): Promise<TestUser> {
  const { email } = await signUpInApp(app);
  const token = await sessionTokenOf(app);
  return { email, token } as TestUser;
}

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('the app speaks to people (%s)', (viewport) => {
  test('an email that is too long is told in words, not in the validator’s', async ({ openPage }) => {
    const app = await openPage(viewport);
    await app.page.goto('/app/');
    await app.page.getByRole('button', { name: 'Create an account' }).click();
    await app.page.getByLabel('Email').fill(`${'a'.repeat(250)}@example.test`);
    await app.page.getByLabel('Password').fill('correct horse battery');
    await app.page.getByRole('button', { name: 'Create account' }).click();
    const alert = app.page.getByRole('alert');
    await alert.getByText('The email is too long (at most 254 characters).').waitFor();
    expect(await pageText(app)).not.toMatch(API_SPEAK);
    forgiveStatus(app, 400);
    await expectAccessible(app, 'sign-up-refused');
    await screenshot(app, 'sign-up-refused');
    expectNoPageErrors(app);
  });

  test('billing names plans and credits as the product does', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app, uniqueEmail());
    await app.page.goto('/app/billing');
    await app.page.getByText('Ds are Skillet’s credits').waitFor();
    await app.page.getByText(/You are on Pay as you go\./).waitFor();
    expect(await pageText(app)).not.toMatch(API_SPEAK);
    await expectAccessible(app, 'billing-words');
    await screenshot(app, 'billing-words');
    expectNoPageErrors(app);
  });

  test('history tells a run that never started from one that was stopped', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    const person = await signedInUser(app);
    const stopped = await createExecution(api, person, 'ticker', '60 300');
    expect((await sendMessage(api, person, stopped.id, '60 300')).status).toBe(200);
    await api.post(`/api/v1/executions/${stopped.id}/cancel`, { headers: { 'x-auth-token': person.token } });
    await createExecution(api, person, 'ticker', '2 10');

    await app.page.goto('/app/runs');
    const table = app.page.getByRole('table');
    await table.getByText('Not started', { exact: true }).waitFor();
    await table.getByText('Stopped', { exact: true }).waitFor();
    expect(await table.getByText('idle', { exact: true }).count()).toBe(0);
    expect(await pageText(app)).not.toMatch(API_SPEAK);
    await expectAccessible(app, 'runs-states');
    await screenshot(app, 'runs-states');
    expectNoPageErrors(app);
  });
});

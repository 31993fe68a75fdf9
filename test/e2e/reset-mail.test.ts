import { afterAll, describe, expect } from 'vitest';
import { startFakeSmtp } from '../fakes/smtp.js';
import { signUp } from '../helpers/factories.js';
import {
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  screenshot,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

const smtp = await startFakeSmtp();
afterAll(() => smtp.close());

const test = withBrowserApp({ SMTP_URL: smtp.url });

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('a forgotten password, by mail (%s)', (viewport) => {
  test('asks for a link on the sign-in page, gets it by mail, and signs in with the new password', async ({ openPage, api }) => {
    const person = await signUp(api);
    const app = await openPage(viewport);
    await app.page.goto('/app/');
    await app.page.getByText('Forgot your password?').click();
    await app.page.getByLabel('Your email').fill(person.email);
    await app.page.getByRole('button', { name: 'Mail me a reset link' }).click();
    await app.page.getByText(`If an account has the address ${person.email}, a link is on its way to it.`).waitFor();
    await expectAccessible(app, 'reset by mail');
    await screenshot(app, 'reset-mail-sent');

    await expect.poll(() => smtp.mails.filter((mail) => mail.to.includes(person.email)).length).toBe(1);
    const raw = smtp.mails.find((mail) => mail.to.includes(person.email))?.raw ?? '';
    const link = /https?:\/\/\S+\/app\/reset-password#token=sklt_reset_[0-9A-Za-z]{40}/.exec(
      raw.replace(/=\r?\n/g, '').replace(/=3D/g, '='),
    )?.[0];
    expect(link).toBeDefined();
    const url = new URL(link as string);
    await app.page.goto(`${url.pathname}${url.hash}`);
    await app.page.getByLabel('New password').fill('mailed and chosen');
    await app.page.getByRole('button', { name: 'Set the new password' }).click();
    await app.page.getByText('Your password is changed').waitFor();
    await app.page.getByRole('button', { name: 'Sign in' }).click();
    await app.page.getByLabel('Email', { exact: true }).fill(person.email);
    await app.page.getByLabel('Password', { exact: true }).fill('mailed and chosen');
    await app.page.getByRole('button', { name: 'Sign in' }).click();
    await app.page.getByRole('heading', { name: 'Skills', level: 1 }).waitFor();
    expectNoPageErrors(app);
  });
});

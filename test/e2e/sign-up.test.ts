import { describe, expect } from 'vitest';
import {
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  screenshot,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

const test = withBrowserApp();

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('signing up and in (%s)', (viewport) => {
  test('a newcomer at / lands on sign-in, creates an account and sees the skills', async ({ openPage }) => {
    const app = await openPage(viewport);
    await app.page.goto('/');
    expect(new URL(app.page.url()).pathname).toBe('/app/');
    await app.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await expectAccessible(app, 'sign-in');
    await screenshot(app, 'sign-in');

    const { email } = await signUpInApp(app);
    await expect.poll(() => app.page.getByText(email).count()).toBeGreaterThan(viewport === 'phone' ? -1 : 0);
    // The session is an httpOnly cookie: page script cannot read it.
    expect(await app.page.evaluate('document.cookie')).not.toContain('skillet_session');
    const cookies = await app.page.context().cookies();
    const session = cookies.find((cookie) => cookie.name === 'skillet_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expectNoPageErrors(app);
  });

  test('signing out ends the session on the server; signing in again works; a wrong password is told', async ({ openPage }) => {
    const app = await openPage(viewport);
    const { email, password } = await signUpInApp(app);
    const token = (await app.page.context().cookies()).find((cookie) => cookie.name === 'skillet_session')?.value;
    await app.page.getByRole('button', { name: 'Sign out' }).click();
    await app.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    // The old token no longer works anywhere.
    const me = await app.page.request.get('/api/v1/me', { headers: { 'x-auth-token': token as string } });
    expect(me.status()).toBe(401);

    await app.page.getByLabel('Email').fill(email);
    await app.page.getByLabel('Password').fill('not the password');
    await app.page.getByRole('button', { name: 'Sign in' }).click();
    await app.page.getByRole('alert').waitFor();
    await app.page.getByLabel('Password').fill(password);
    await app.page.getByRole('button', { name: 'Sign in' }).click();
    await app.page.getByRole('heading', { name: 'Skills', level: 1 }).waitFor();
    // The failed sign-in's 401 is shown in the form, not left in the console as an error.
    app.errors.splice(0, app.errors.length, ...app.errors.filter((error) => !error.includes('401')));
    expectNoPageErrors(app);
  });
});

import * as oauth from 'openid-client';
import { describe, expect } from 'vitest';
import { makeResetLink } from '../../src/identity/account.js';
import { signUp } from '../helpers/factories.js';
import { authorize, bearer, register } from '../helpers/oauth-flow.js';
import {
  CHROMIUM,
  expectAccessible,
  expectNoPageErrors,
  forgiveStatus,
  openSection,
  screenshot,
  signUpInApp,
  VIEWPORTS,
  type ViewportName,
  withBrowserApp,
} from './browser.js';

const test = withBrowserApp();

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('your account (%s)', (viewport) => {
  test('signs another session out, and changes the password with the current one', async ({ openPage, api }) => {
    const app = await openPage(viewport);
    const { email, password } = await signUpInApp(app);
    const elsewhere = await api.post<{ token: string }>('/api/v1/auth/login', { body: { email, password } });
    expect(elsewhere.status).toBe(200);

    await openSection(app, 'Account');
    await app.page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    const sessions = app.page.getByRole('list').filter({ hasText: 'This browser' });
    await expect.poll(() => sessions.getByRole('listitem').count()).toBe(2);
    await app.page.getByRole('button', { name: 'Sign this session out' }).click();
    await app.page.getByRole('button', { name: 'Yes, sign it out' }).click();
    await expect.poll(() => sessions.getByRole('listitem').count()).toBe(1);
    expect((await api.get('/api/v1/me', { headers: { 'x-auth-token': elsewhere.body.token } })).status).toBe(401);

    await app.page.getByLabel('Current password').fill('not my password');
    await app.page.getByLabel('New password').fill('a much better password');
    await app.page.getByRole('button', { name: 'Change password' }).click();
    await app.page.getByRole('alert').filter({ hasText: 'That is not your current password. Try again.' }).waitFor();
    await app.page.getByLabel('Current password').fill(password);
    await app.page.getByRole('button', { name: 'Change password' }).click();
    await app.page.getByText('Password changed.').waitFor();
    await expectAccessible(app, 'account');
    await screenshot(app, 'account');
    const signIn = await api.post('/api/v1/auth/login', { body: { email, password: 'a much better password' } });
    expect(signIn.status).toBe(200);
    forgiveStatus(app, 403);
    expectNoPageErrors(app);
  });

  test('shows an app connected over OAuth, and disconnecting it stops it', async ({ openPage, api, server }) => {
    const person = await signUp(api);
    const config = await register(server);
    const authorized = await authorize(server, config, person);
    const tokens = await oauth.authorizationCodeGrant(config, authorized.callback, {
      pkceCodeVerifier: authorized.verifier,
      expectedState: authorized.state,
    });
    const app = await openPage(viewport);
    await app.page.goto('/app/');
    await app.page.getByLabel('Email').fill(person.email);
    await app.page.getByLabel('Password').fill(person.password);
    await app.page.getByRole('button', { name: 'Sign in' }).click();
    await app.page.getByRole('heading', { name: 'Skills', level: 1 }).waitFor();
    await openSection(app, 'Account');
    const connected = app.page.getByRole('region', { name: 'Connected apps' });
    await connected.getByText('Test <App> may see your work and run skills and change things in Personal').waitFor();
    await expectAccessible(app, 'connected apps');
    await screenshot(app, 'connected-apps');
    await connected.getByRole('button', { name: 'Disconnect Test <App>' }).click();
    await connected.getByRole('button', { name: 'Yes, disconnect' }).click();
    await connected.getByText('No app is connected.').waitFor();
    expect((await api.get('/api/v1/me', { headers: bearer(tokens.access_token) })).status).toBe(401);
    expectNoPageErrors(app);
  });

  test('a reset link lets a person who forgot their password choose a new one, once', async ({ openPage, api, server }) => {
    const person = await signUp(api);
    const app = await openPage(viewport);
    await app.page.goto('/app/');
    await app.page.getByText('Forgot your password?').click();
    await app.page.getByText('Ask whoever runs this Skillet server for a password reset link.').waitFor();

    const { url } = await makeResetLink({ db: server.db.db, clock: server.clock, config: server.config }, person.email);
    const link = new URL(url);
    await app.page.goto(`${link.pathname}${link.hash}`);
    await app.page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    // The token leaves the address bar once read.
    expect(new URL(app.page.url()).hash).toBe('');
    await app.page.getByLabel('New password').fill('remembered this time');
    await expectAccessible(app, 'reset password');
    await app.page.getByRole('button', { name: 'Set the new password' }).click();
    await app.page.getByText('Your password is changed').waitFor();
    await screenshot(app, 'reset-password');
    await app.page.getByRole('button', { name: 'Sign in' }).click();
    await app.page.getByLabel('Email').fill(person.email);
    await app.page.getByLabel('Password').fill('remembered this time');
    await app.page.getByRole('button', { name: 'Sign in' }).click();
    await app.page.getByRole('heading', { name: 'Skills', level: 1 }).waitFor();

    // The same link a second time says what happened and what to do.
    await app.page.goto(`${link.pathname}${link.hash}`);
    await app.page.getByLabel('New password').fill('and yet another one');
    await app.page.getByRole('button', { name: 'Set the new password' }).click();
    await app.page
      .getByRole('alert')
      .filter({ hasText: 'This reset link has been used or has expired. Ask for a new one.' })
      .waitFor();
    forgiveStatus(app, 400);
    expectNoPageErrors(app);
  });
});

import { describe, expect } from 'vitest';
import { createKey, signUp } from '../helpers/factories.js';
import {
  type AppPage,
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

/** Creates a key through the form and reads its plaintext from the one place it shows. */
async function createKeyInApp(app: AppPage, label: string): Promise<string> {
  await app.page.getByLabel('Label').fill(label);
  await app.page.getByRole('button', { name: 'Create key' }).click();
  await app.page.getByRole('heading', { name: `New key “${label}”` }).waitFor();
  return app.page.getByLabel('Your new API key').inputValue();
}

/** The row of the key with this label. */
function keyRow(app: AppPage, label: string) {
  return app.page.getByRole('row').filter({ hasText: label });
}

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('API keys (%s)', (viewport) => {
  test('a new key shows its plaintext once, works as x-api-key, and is gone after a reload', async ({ openPage, server }) => {
    const app = await openPage(viewport);
    const { email } = await signUpInApp(app);
    await openSection(app, 'Keys');
    await app.page.getByText('No keys yet.', { exact: false }).waitFor();

    const key = await createKeyInApp(app, 'laptop CLI');
    expect(key).toMatch(/^sklt_live_/);
    expect(await app.page.getByText('it will not be shown again', { exact: false }).count()).toBe(1);
    expect(await app.page.getByRole('button', { name: 'Copy key' }).count()).toBe(1);
    await expectAccessible(app, 'keys-created');
    await screenshot(app, 'keys-created');

    const me = await fetch(`${server.url}/api/v1/me`, { headers: { 'x-api-key': key } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ user: { email } });

    await app.page.reload();
    await keyRow(app, 'laptop CLI').waitFor();
    expect(await app.page.getByLabel('Your new API key').count()).toBe(0);
    expect(await app.page.content()).not.toContain(key);
    // The list shows only the preview the server keeps.
    expect(await keyRow(app, 'laptop CLI').innerText()).toContain(key.slice(0, 14));
    expectNoPageErrors(app);
  });

  test('using a key moves its activity from “Not used yet” to “In use now”', async ({ openPage, server }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await app.page.goto('/app/keys');
    const key = await createKeyInApp(app, 'agent on CI');
    await app.page.getByRole('button', { name: 'I have saved it' }).click();
    const row = keyRow(app, 'agent on CI');
    await row.getByText('Not used yet', { exact: true }).waitFor();
    expect(await row.getByText('Never', { exact: true }).count()).toBe(1);

    expect((await fetch(`${server.url}/api/v1/me`, { headers: { 'x-api-key': key } })).status).toBe(200);
    await app.page.getByRole('button', { name: 'Refresh' }).click();
    await row.getByText('In use now', { exact: true }).waitFor();
    expect(await row.getByText('Never', { exact: true }).count()).toBe(0);
    await expectAccessible(app, 'keys');
    await screenshot(app, 'keys');
    expectNoPageErrors(app);
  });

  test('revoking asks first; after confirming, the key fails with 401', async ({ openPage, server }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await app.page.goto('/app/keys');
    const key = await createKeyInApp(app, 'old phone');
    const row = keyRow(app, 'old phone');

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Cancel' }).click();
    expect((await fetch(`${server.url}/api/v1/me`, { headers: { 'x-api-key': key } })).status).toBe(200);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await app.page.getByText('Revoked “old phone”.', { exact: false }).waitFor();
    expect(await keyRow(app, 'old phone').count()).toBe(0);
    // The plaintext went with the key it belonged to.
    expect(await app.page.getByLabel('Your new API key').count()).toBe(0);
    expect((await fetch(`${server.url}/api/v1/me`, { headers: { 'x-api-key': key } })).status).toBe(401);
    await expectAccessible(app, 'keys-revoked');
    await screenshot(app, 'keys-revoked');
    expectNoPageErrors(app);
  });

  test("the tier's key limit is told with the server's message", async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    // A new account pays as it goes: ten keys.
    for (let index = 1; index <= 10; index++) {
      const made = await app.page.request.post('/api/v1/keys', {
        headers: { 'x-skillet-app': '1' },
        data: { label: `key ${index}` },
      });
      expect(made.status()).toBe(201);
    }
    await app.page.goto('/app/keys');
    await keyRow(app, 'key 10').waitFor();
    await app.page.getByLabel('Label').fill('one too many');
    await app.page.getByRole('button', { name: 'Create key' }).click();
    const alert = app.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toContain('You already have the 10 keys Pay as you go allows');
    expect(await keyRow(app, 'one too many').count()).toBe(0);
    await expectAccessible(app, 'keys-limit');
    await screenshot(app, 'keys-limit');
    forgiveStatus(app, 403);
    expectNoPageErrors(app);
  });

  test("another person's key is neither listed nor revocable", async ({ openPage, api, server }) => {
    const other = await signUp(api);
    const theirs = await createKey(api, other, 'their secret key');
    const app = await openPage(viewport);
    await signUpInApp(app);
    await app.page.goto('/app/keys');
    await app.page.getByText('No keys yet.', { exact: false }).waitFor();
    expect(await app.page.getByText('their secret key').count()).toBe(0);

    const refused = await app.page.request.delete(`/api/v1/keys/${theirs.id}`, { headers: { 'x-skillet-app': '1' } });
    expect(refused.status()).toBe(404);
    expect(await refused.text()).not.toContain('their secret key');
    expect((await fetch(`${server.url}/api/v1/me`, { headers: { 'x-api-key': theirs.key } })).status).toBe(200);
    expectNoPageErrors(app);
  });
});

import { describe, expect } from 'vitest';
import { authorizationUrl, register } from '../helpers/oauth-flow.js';
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

const test = withBrowserApp({ RATE_LIMIT_REST_PER_MINUTE: '100000' });

interface Look {
  band: string;
  font: string;
  button: string | null;
}

/**
 * How a page paints what makes the app's look: its header band, its type, its main button.
 * A string, so it runs as page script (the tests are compiled without the DOM's types).
 */
function lookOf(app: AppPage, button = ''): Promise<Look> {
  return app.page.evaluate(`(() => {
    const primary = [...document.querySelectorAll('button')].find((candidate) => candidate.textContent.trim() === ${JSON.stringify(button)});
    return {
      band: getComputedStyle(document.querySelector('header')).backgroundColor,
      font: getComputedStyle(document.body).fontFamily,
      button: primary ? getComputedStyle(primary).backgroundColor : null,
    };
  })()`) as Promise<Look>;
}

/** Every page is as wide as the screen at most: nothing to scroll sideways on a phone. */
const fitsTheWidth = (app: AppPage) =>
  app.page.evaluate('document.documentElement.scrollWidth <= window.innerWidth') as Promise<boolean>;

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('pages the server renders (%s)', (viewport) => {
  test('the activation, checkout and OAuth pages wear the app’s look', async ({ openPage, server }) => {
    const app = await openPage(viewport);
    const person = await signUpInApp(app);
    // The app's own look, to hold the others to.
    await app.page.getByRole('heading', { name: 'Skills', level: 1 }).waitFor();
    const appLook = await lookOf(app);

    await app.page.goto('/activate?code=ABCD-EFGH');
    await app.page.getByRole('heading', { name: 'Activate a device', level: 1 }).waitFor();
    expect(await app.page.getByLabel('Code shown on your device').inputValue()).toBe('ABCD-EFGH');
    const activation = await lookOf(app, 'Continue');
    expect(activation.band).toBe(appLook.band);
    expect(activation.font).toBe(appLook.font);
    expect(await fitsTheWidth(app)).toBe(true);
    await expectAccessible(app, 'activation page');
    await screenshot(app, 'server-page-activate');

    // The test checkout of a pack, started from the app's Billing page.
    await app.page.goto('/app/billing');
    await app.page.getByRole('button', { name: /^Buy 100 Ds for / }).click();
    await app.page.waitForURL(/\/billing\/checkout\/cs_local_/);
    await app.page.getByRole('heading', { name: 'Test checkout', level: 1 }).waitFor();
    await app.page
      .getByRole('alert')
      .getByText(/^Test mode: no money moves/)
      .waitFor();
    const checkout = await lookOf(app, 'Pay $1.00');
    expect(checkout.band).toBe(appLook.band);
    expect(checkout.button).toBe(activation.button);
    expect(await fitsTheWidth(app)).toBe(true);
    await expectAccessible(app, 'test checkout');
    await screenshot(app, 'server-page-checkout');
    await app.page.getByRole('button', { name: 'Pay $1.00' }).click();
    await app.page.waitForURL((url) => url.pathname === '/app/billing');

    // An app asking for access over OAuth: the sign-in page, then the consent page.
    const authorization = await authorizationUrl(await register(server), { scope: 'read', resource: `${server.url}/api/v1` });
    await app.page.goto(authorization.url.href);
    await app.page.getByRole('heading', { level: 1 }).first().waitFor();
    const signIn = await lookOf(app, 'Sign in');
    expect(signIn.band).toBe(appLook.band);
    expect(await fitsTheWidth(app)).toBe(true);
    await expectAccessible(app, 'OAuth sign-in');
    await screenshot(app, 'server-page-oauth-sign-in');
    await app.page.getByLabel('Email').fill(person.email);
    await app.page.getByLabel('Password').fill(person.password);
    await app.page.getByRole('button', { name: 'Sign in' }).click();
    await app.page.getByRole('button', { name: 'Allow' }).waitFor();
    expect((await lookOf(app, 'Allow')).band).toBe(appLook.band);
    expect(await fitsTheWidth(app)).toBe(true);
    await expectAccessible(app, 'OAuth consent');
    await screenshot(app, 'server-page-oauth-consent');
    expectNoPageErrors(app);
  });

  test('the app’s Docs link reaches the guide, which wears the app’s look and links the reference both ways', async ({
    openPage,
  }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    await app.page.getByRole('heading', { name: 'Skills', level: 1 }).waitFor();
    const appLook = await lookOf(app);
    await screenshot(app, 'app-with-docs-link');

    await openSection(app, 'Docs');
    await app.page.waitForURL((url) => url.pathname === '/docs');
    await app.page.getByRole('heading', { name: 'Getting started', level: 1 }).waitFor();
    for (const section of ['Get an API key', 'A first run', 'Streaming a run', 'Errors', 'Ds: what runs cost']) {
      await app.page.getByRole('heading', { name: section, level: 2 }).waitFor();
    }
    const guide = await lookOf(app);
    expect(guide.band).toBe(appLook.band);
    expect(guide.font).toBe(appLook.font);
    expect(await fitsTheWidth(app)).toBe(true);
    await expectAccessible(app, 'getting started');
    await screenshot(app, 'docs-getting-started');

    const docsNav = app.page.getByRole('navigation', { name: 'Docs' });
    await docsNav.getByRole('link', { name: 'Writing a skill' }).click();
    await app.page.getByRole('heading', { name: 'Writing a skill', level: 1 }).waitFor();
    expect(await fitsTheWidth(app)).toBe(true);
    await expectAccessible(app, 'writing a skill');
    await screenshot(app, 'docs-writing-skills');

    // The reference opens with what a newcomer needs first, and leads back to the guide.
    await docsNav.getByRole('link', { name: 'API reference' }).click();
    await app.page.getByRole('heading', { name: 'Authentication' }).waitFor();
    // Swagger UI opens the links of its description in a new tab; the address is what counts.
    expect(await app.page.getByRole('link', { name: 'Getting started' }).first().getAttribute('href')).toBe('/docs');

    expectNoPageErrors(app);

    await app.page.goto('/docs/no-such-page');
    await app.page.getByRole('heading', { name: 'No such page', level: 1 }).waitFor();
    await app.page.getByText('There is no page by that name in the docs.').waitFor();
    await expectAccessible(app, 'docs page not found');
    await app.page.getByRole('link', { name: 'Getting started' }).first().click();
    await app.page.waitForURL((url) => url.pathname === '/docs');
    // The one error is the browser's note of the 404 itself.
    expect(app.errors).toEqual(['console: Failed to load resource: the server responded with a status of 404 (Not Found)']);
  });
});

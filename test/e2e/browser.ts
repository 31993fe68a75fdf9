import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS } from '../../bench/chromium.js';
import type { Env } from '../../src/config.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { uniqueEmail } from '../helpers/factories.js';
import { withServer } from '../helpers/fixtures.js';
import type { ServerParts } from '../helpers/server.js';
import { E2E_WEB_DIR } from './global-setup.js';

export { CHROMIUM };

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

/** Screenshots go here (ignored by git); the note lists them. */
export const SCREENSHOT_DIR = path.join(PROJECT_ROOT, 'test-results', 'screenshots');

const AXE_SOURCE = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AppPage {
  page: Page;
  /** Console errors and uncaught exceptions so far; every test ends expecting none. */
  errors: string[];
  /** Requests the rate limiter refused (method and path); the test fails at its end unless none. */
  rateLimited: string[];
  viewport: ViewportName;
}

/**
 * A real server serving the built app, and one headless Chromium for the file. `openPage`
 * gives a fresh browser context (no cookies) at a viewport, recording console errors.
 * `parts` are the server's (a clock that starts at the real time, for signatures a
 * receiver checks).
 */
export function withBrowserApp(env: Env = {}, parts: ServerParts = {}) {
  // The shipped per-minute limits, so a journey that would refuse a real person fails here. Each
  // browser context is a person at an address of their own (X-Forwarded-For, which the server
  // then trusts): signed-out requests and event streams count per address, and a file's people
  // would otherwise all share 127.0.0.1's allowance, as no real people do.
  return withServer({ WEB_APP_DIR: E2E_WEB_DIR, TRUST_PROXY: 'true', ...env }, parts)
    .extend('browser', { scope: 'file' }, async ({ server: _server }, { onCleanup }) => {
      const browser = await chromium.launch({
        executablePath: CHROMIUM as string,
        headless: true,
        args: CHROMIUM_ARGS,
      });
      onCleanup(() => browser.close());
      return browser;
    })
    .extend('openPage', async ({ browser, server }, { onCleanup }) => {
      const pages: AppPage[] = [];
      onCleanup(async () => {
        for (const opened of pages) await opened.page.context().close();
        // The budget: no journey of the app is refused by the rate limiter.
        for (const opened of pages) expect(opened.rateLimited, `rate-limited answers (${opened.viewport})`).toEqual([]);
      });
      return async (viewport: ViewportName = 'desktop'): Promise<AppPage> => {
        const opened = await openAppPage(browser, server.url, viewport);
        pages.push(opened);
        return opened;
      };
    });
}

/** A documentation address (TEST-NET-2) per browser context opened by this test process. */
let contexts = 0;
const nextAddress = () => {
  contexts += 1;
  return `198.51.${Math.floor(contexts / 256) % 256}.${contexts % 256}`;
};

async function openAppPage(browser: Browser, baseURL: string, viewport: ViewportName): Promise<AppPage> {
  const context = await browser.newContext({
    baseURL,
    viewport: VIEWPORTS[viewport],
    acceptDownloads: true,
    extraHTTPHeaders: { 'x-forwarded-for': nextAddress() },
  });
  // Well inside the test's own timeout, so a stuck step fails naming its locator.
  context.setDefaultTimeout(30_000);
  const page = await context.newPage();
  const errors: string[] = [];
  const rateLimited: string[] = [];
  // Every page of the context (a checkout's too), event streams included. A 429 with Retry-After is
  // the limiter's; a run already going in the workspace is a 429 without one, which tests provoke.
  context.on('response', (response) => {
    if (response.status() === 429 && response.headers()['retry-after'] !== undefined) {
      rateLimited.push(`${response.request().method()} ${new URL(response.url()).pathname}`);
    }
  });
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  return { page, errors, rateLimited, viewport };
}

/** Signs up through the app's own form; the app then shows the skills. */
export async function signUpInApp(
  app: AppPage,
  email = uniqueEmail(),
  password = 'correct horse battery',
): Promise<{ email: string; password: string }> {
  await app.page.goto('/app/');
  await app.page.getByRole('button', { name: 'Create an account' }).click();
  await app.page.getByLabel('Email').fill(email);
  await app.page.getByLabel('Password').fill(password);
  await app.page.getByRole('button', { name: 'Create account' }).click();
  await app.page.getByRole('heading', { name: 'Skills', level: 1 }).waitFor();
  return { email, password };
}

/** axe-core inside the page (evaluated, so the page's CSP needs no exception): no serious or critical finding. */
export async function expectAccessible(app: AppPage, screen: string): Promise<void> {
  const source = await AXE_SOURCE;
  // A string, so it runs as page script and nothing of the page's DOM types leaks into ours.
  const violations = (await app.page.evaluate(`${source}
    axe.run(document).then((result) => result.violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map((violation) => violation.id + ' (' + violation.impact + '): ' + violation.help + ' at ' +
        violation.nodes.map((node) => node.target.join(' ')).join(', ')))`)) as string[];
  expect(violations, `axe findings on ${screen} (${app.viewport})`).toEqual([]);
}

/** A full-page screenshot named after the screen and viewport. */
export async function screenshot(app: AppPage, screen: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await app.page.screenshot({ path: path.join(SCREENSHOT_DIR, `${screen}-${app.viewport}.png`), fullPage: true });
}

/** Chromium logs each non-2xx answer as a console error; these are ones a test provoked on purpose. */
export function forgiveStatus(app: AppPage, status: number): void {
  app.errors.splice(0, app.errors.length, ...app.errors.filter((error) => !error.includes(`status of ${status}`)));
}

/** The end of every test: nothing went wrong in the page. */
export function expectNoPageErrors(app: AppPage): void {
  expect(app.errors, `errors in the page (${app.viewport})`).toEqual([]);
}

/** Goes to a section the way a person does: on a phone the sections sit behind Menu. */
export async function openSection(app: AppPage, name: string): Promise<void> {
  const menu = app.page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await app.page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name }).click();
}

/** The session token the app's cookie holds: the test asks the server with it what it holds for this person. */
export async function sessionTokenOf(app: AppPage): Promise<string> {
  const cookie = (await app.page.context().cookies()).find((each) => each.name === 'skillet_session');
  expect(cookie, 'the app sets its session cookie at sign-in').toBeDefined();
  return cookie?.value as string;
}

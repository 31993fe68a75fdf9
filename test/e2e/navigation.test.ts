import { describe, expect } from 'vitest';
import {
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

const test = withBrowserApp();

const SECTIONS: [string, string][] = [
  ['Skills', 'Skills'],
  ['Assistant', 'Assistant'],
  ['Runs', 'Runs'],
  ['Artifacts', 'Artifacts'],
  ['Keys', 'API keys'],
  ['Billing', 'Billing'],
  ['Workspaces', 'Workspaces'],
  ['Webhooks', 'Webhooks'],
  ['Approve a device', 'Approve a device'],
  ['Account', 'Your account'],
];

describe.runIf(CHROMIUM).each(Object.keys(VIEWPORTS) as ViewportName[])('finding your way (%s)', (viewport) => {
  test('every section is reachable and none is cut off', async ({ openPage }) => {
    const app = await openPage(viewport);
    await signUpInApp(app);
    const nav = app.page.getByRole('navigation', { name: 'Sections' });
    const menu = app.page.getByRole('button', { name: 'Menu' });
    expect(await menu.isVisible()).toBe(viewport === 'phone');
    if (viewport === 'phone') {
      expect(await nav.isVisible()).toBe(false);
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await expectAccessible(app, 'menu-open');
      await screenshot(app, 'menu-open');
      await menu.click();
    }
    for (const [link, heading] of SECTIONS) {
      await openSection(app, link);
      await app.page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      // Going somewhere folds the menu again on a phone.
      if (viewport === 'phone') expect(await nav.isVisible()).toBe(false);
    }
    if (viewport === 'phone') await menu.click();
    // Every link lies inside the page's width: nothing needs a sideways scroll to be found.
    const width = VIEWPORTS[viewport].width;
    for (const [link] of SECTIONS) {
      const box = await nav.getByRole('link', { name: link }).boundingBox();
      expect(box, link).not.toBeNull();
      expect((box?.x ?? 0) + (box?.width ?? 0), link).toBeLessThanOrEqual(width);
    }
    expectNoPageErrors(app);
  });
});

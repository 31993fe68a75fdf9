import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GLOBAL_NODE_MODULES } from './computer-software.js';

/** Where Playwright looks for its browsers inside the computer (PLAYWRIGHT_BROWSERS_PATH). */
export const PLAYWRIGHT_BROWSERS_INSIDE = '/opt/ms-playwright';
/** The image's Chromium, from Debian: Playwright's own downloads cannot be had offline, and need not be. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** Each browser Playwright may launch as Chromium, and where its executable sits in its folder (Linux). */
const EXECUTABLES: Record<string, Record<string, string[]>> = {
  chromium: { x64: ['chrome-linux64', 'chrome'], arm64: ['chrome-linux-arm64', 'chrome'] },
  'chromium-headless-shell': {
    x64: ['chrome-headless-shell-linux64', 'chrome-headless-shell'],
    arm64: ['chrome-headless-shell-linux-arm64', 'chrome-headless-shell'],
  },
};

interface BrowsersFile {
  browsers: { name: string; revision: string }[];
}

/** playwright-core's browsers.json in the image: at the top of the global packages, or inside playwright's own. */
function browsersFile(rootfs: string): string | undefined {
  const modules = path.join(rootfs, GLOBAL_NODE_MODULES);
  return [
    path.join(modules, 'playwright-core', 'browsers.json'),
    path.join(modules, 'playwright', 'node_modules', 'playwright-core', 'browsers.json'),
  ].find((file) => existsSync(file));
}

/**
 * Points the Chromium builds the image's Playwright expects at Debian's Chromium, in the
 * layout Playwright's registry reads (`<name with _>-<revision>/<folder>/<executable>`, with
 * its installation marker), so `chromium.launch()` works as written. Nothing to do without
 * Playwright or Chromium in the image.
 */
export async function linkPlaywrightBrowsers(rootfs: string, arch = process.arch): Promise<string[]> {
  const file = browsersFile(rootfs);
  if (!file || !existsSync(path.join(rootfs, DEBIAN_CHROMIUM))) return [];
  const { browsers } = JSON.parse(readFileSync(file, 'utf8')) as BrowsersFile;
  const linked: string[] = [];
  for (const browser of browsers) {
    const parts = EXECUTABLES[browser.name]?.[arch];
    if (!parts) continue;
    const folder = path.join(rootfs, PLAYWRIGHT_BROWSERS_INSIDE, `${browser.name.replace(/-/g, '_')}-${browser.revision}`);
    const executable = path.join(folder, ...parts);
    await mkdir(path.dirname(executable), { recursive: true });
    await rm(executable, { force: true });
    await symlink(DEBIAN_CHROMIUM, executable);
    await writeFile(path.join(folder, 'INSTALLATION_COMPLETE'), '');
    linked.push(path.relative(rootfs, executable));
  }
  return linked;
}

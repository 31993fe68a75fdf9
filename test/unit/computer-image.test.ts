import { existsSync, readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { findComputerImage, imageViewArgs, withComputerImage } from '../../src/sandbox/computer/computer-image.js';
import { hostDebianMirror, moveIntoStore } from '../../src/sandbox/computer/computer-image-build.js';
import { readImageRecipe } from '../../src/sandbox/computer/computer-image-recipe.js';
import { readSoftwareList, versionAtLeast } from '../../src/sandbox/computer/computer-software.js';
import { linkPlaywrightBrowsers } from '../../src/sandbox/computer/playwright-browsers.js';
import { BUILT_INS_ONLY } from '../../src/sandbox/sandbox.js';

const scratch = () => mkdtemp(path.join(tmpdir(), 'skillet-image-'));

/** A store holding one image's description and the least of a root filesystem. */
async function storeWithImage(version: string): Promise<string> {
  const store = await scratch();
  const folder = path.join(store, version);
  await mkdir(path.join(folder, 'rootfs', 'usr', 'bin'), { recursive: true });
  await writeFile(path.join(folder, 'rootfs', 'usr', 'bin', 'python3'), '');
  await symlink('usr/bin', path.join(folder, 'rootfs', 'bin'));
  await writeFile(path.join(folder, 'image.json'), JSON.stringify({ version, builtAt: '2026-12-06T00:00:00Z', suite: 'trixie' }));
  await symlink(version, path.join(store, 'current'));
  return store;
}

describe('the computer image recipe', () => {
  it('installs every package of the software list, and names itself by what it is built from', () => {
    const recipe = readImageRecipe();
    for (const entry of readSoftwareList()) {
      for (const name of (entry.package ?? '').split(' ').filter(Boolean)) expect(recipe.debianPackages).toContain(name);
      for (const name of (entry.npm ?? '').split(' ').filter(Boolean)) expect(recipe.npmPackages).toContain(name);
    }
    expect(recipe.debianPackages).toEqual(
      expect.arrayContaining(['python-is-python3', 'python3-defusedxml', 'pandoc', 'fonts-liberation']),
    );
    expect(recipe.version).toMatch(/^trixie-r\d+-[0-9a-f]{10}$/);
    expect(readImageRecipe().version).toBe(recipe.version);
  });

  it('is another version with other pip requirements', async () => {
    const file = path.join(await scratch(), 'requirements.txt');
    await writeFile(file, '# ours\nskillet-compat-probe\n');
    const other = readImageRecipe({ pipRequirementsFile: file });
    expect(other.pipRequirements).toEqual(['skillet-compat-probe']);
    expect(other.version).not.toBe(readImageRecipe().version);
  });

  it("finds the Debian mirror this host's apt uses, in either format", async () => {
    const dir = await scratch();
    const deb822 = path.join(dir, 'debian.sources');
    await writeFile(deb822, 'Types: deb\nURIs: http://mirror.test/debian\nSuites: bookworm\n');
    expect(hostDebianMirror([deb822])).toBe('http://mirror.test/debian');
    const oneLine = path.join(dir, 'sources.list');
    await writeFile(oneLine, '# comment\ndeb [arch=amd64] http://other.test/debian/ bookworm main\n');
    expect(hostDebianMirror([path.join(dir, 'absent'), oneLine])).toBe('http://other.test/debian');
    expect(hostDebianMirror([path.join(dir, 'absent')])).toBeUndefined();
  });
});

describe('finding the image in use', () => {
  it("reads the version the store's current link names", async () => {
    const store = await storeWithImage('trixie-r1-abc');
    const found = findComputerImage(store);
    expect(found).toMatchObject({ image: { version: 'trixie-r1-abc', root: path.join(store, 'trixie-r1-abc', 'rootfs') } });
  });

  it('says why there is none: no store, or a folder that is not an image', async () => {
    expect(findComputerImage(path.join(await scratch(), 'nothing'))).toMatchObject({
      missing: expect.stringMatching(/no computer image is built/),
    });
    const store = await storeWithImage('v1');
    await writeFile(path.join(store, 'v1', 'image.json'), 'not json');
    expect(findComputerImage(store)).toMatchObject({ missing: expect.stringMatching(/no readable image\.json/) });
  });

  it('falls back to the host without one, unless the operator named the folder', async () => {
    const empty = path.join(await scratch(), 'none');
    expect(withComputerImage(BUILT_INS_ONLY, { dir: empty, required: false }, 'v1')).toBe(BUILT_INS_ONLY);
    expect(() => withComputerImage(BUILT_INS_ONLY, { dir: empty, required: true }, 'v1')).toThrow(ConfigError);
    expect(() => withComputerImage(BUILT_INS_ONLY, { dir: empty, required: true }, 'v1')).toThrow(/skillet computer build/);
  });

  it('uses an image of another recipe, and warns that nodes should agree', async () => {
    const store = await storeWithImage('trixie-r1-old');
    const same = withComputerImage(BUILT_INS_ONLY, { dir: store, required: true }, 'trixie-r1-old');
    expect(same.computerImage?.version).toBe('trixie-r1-old');
    expect(same.warning).toBeUndefined();
    const other = withComputerImage(BUILT_INS_ONLY, { dir: store, required: false }, 'trixie-r1-new');
    expect(other.computerImage?.version).toBe('trixie-r1-old');
    expect(other.warning).toMatch(/built from another recipe.*rebuild it with skillet computer build/);
  });
});

describe("the sandbox's view of an image", () => {
  it("shows the image's system read only, its merged-/usr links, and nothing of the host's", async () => {
    const store = await storeWithImage('v1');
    const root = path.join(store, 'v1', 'rootfs');
    const args = imageViewArgs(root, ['--bind', '/host/space', '/workspace']);
    const joined = args.join(' ');
    expect(joined).toContain(`--ro-bind ${root}/usr /usr`);
    expect(joined).toContain('--symlink usr/bin /bin');
    expect(joined).toContain(`--ro-bind ${root}/etc /etc`);
    expect(joined).toContain('--symlink /usr/local/lib/node_modules /node_modules');
    // The run's binds come after the system's, and the root is made read only last.
    expect(args.indexOf('/workspace')).toBeGreaterThan(args.indexOf('/etc'));
    expect(args.slice(-2)).toEqual(['--remount-ro', '/']);
    const hostSources = args.filter((_arg, at) => args[at - 1] === '--ro-bind' || args[at - 1] === '--bind');
    expect(hostSources.every((source) => source.startsWith(root) || source === '/host/space')).toBe(true);
  });
});

describe('Playwright in the image', () => {
  it("points the Chromium builds Playwright expects at Debian's Chromium, marked installed", async () => {
    const rootfs = await scratch();
    const core = path.join(rootfs, 'usr/local/lib/node_modules/playwright/node_modules/playwright-core');
    await mkdir(core, { recursive: true });
    await writeFile(
      path.join(core, 'browsers.json'),
      JSON.stringify({
        browsers: [
          { name: 'chromium', revision: '1255' },
          { name: 'chromium-headless-shell', revision: '1255' },
          { name: 'firefox', revision: '1572' },
        ],
      }),
    );
    await mkdir(path.join(rootfs, 'usr/bin'), { recursive: true });
    await writeFile(path.join(rootfs, 'usr/bin/chromium'), '');
    const linked = await linkPlaywrightBrowsers(rootfs, 'x64');
    expect(linked).toEqual([
      'opt/ms-playwright/chromium-1255/chrome-linux64/chrome',
      'opt/ms-playwright/chromium_headless_shell-1255/chrome-headless-shell-linux64/chrome-headless-shell',
    ]);
    expect(readlinkSync(path.join(rootfs, linked[0] ?? ''))).toBe('/usr/bin/chromium');
    expect(existsSync(path.join(rootfs, 'opt/ms-playwright/chromium-1255/INSTALLATION_COMPLETE'))).toBe(true);
    expect(await readFile(path.join(rootfs, 'opt/ms-playwright/chromium-1255/INSTALLATION_COMPLETE'), 'utf8')).toBe('');
  });

  it('does nothing without Playwright or Chromium', async () => {
    expect(await linkPlaywrightBrowsers(await scratch())).toEqual([]);
  });
});

describe('versions', () => {
  it('compares dotted versions part by part', () => {
    expect(versionAtLeast('5.4.0', '5.0')).toBe(true);
    expect(versionAtLeast('3.4.1', '5.0')).toBe(false);
    expect(versionAtLeast('2.37.0', '2.31')).toBe(true);
    expect(versionAtLeast('2.4.1', '2.31')).toBe(false);
    expect(versionAtLeast('10.0', '10.0')).toBe(true);
    expect(versionAtLeast('11.1.0rc1', '10')).toBe(true);
  });
});

describe('the image store', () => {
  /** A finished build's folder, as buildComputerImage leaves it before moving it in. */
  async function built(store: string, version: string): Promise<string> {
    const work = path.join(store, `.building-${version}-1`);
    await mkdir(path.join(work, 'rootfs', 'usr', 'bin'), { recursive: true });
    await writeFile(path.join(work, 'rootfs', 'usr', 'bin', 'python3'), '');
    await writeFile(path.join(work, 'image.json'), JSON.stringify({ version, builtAt: 'now', suite: 'trixie' }));
    return work;
  }

  it('points current at each new build and keeps the one before, for servers still on it', async () => {
    const store = await scratch();
    for (const version of ['v1', 'v2', 'v3']) await moveIntoStore(await built(store, version), store, version);
    expect(readlinkSync(path.join(store, 'current'))).toBe('v3');
    expect(existsSync(path.join(store, 'v2'))).toBe(true);
    expect(existsSync(path.join(store, 'v1'))).toBe(false);
    expect(findComputerImage(store)).toMatchObject({ image: { version: 'v3' } });
  });

  it('replaces a version built again, whole', async () => {
    const store = await scratch();
    await moveIntoStore(await built(store, 'v1'), store, 'v1');
    await writeFile(path.join(store, 'v1', 'rootfs', 'stale'), '');
    await moveIntoStore(await built(store, 'v1'), store, 'v1');
    expect(existsSync(path.join(store, 'v1', 'rootfs', 'stale'))).toBe(false);
    expect(readlinkSync(path.join(store, 'current'))).toBe('v1');
  });
});

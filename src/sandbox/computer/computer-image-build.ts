import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, readdir, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { shellQuote } from '../shell-relay.js';
import { CURRENT_IMAGE, IMAGE_DESCRIPTION, type ImageDescription } from './computer-image.js';
import type { ImageRecipe } from './computer-image-recipe.js';
import { linkPlaywrightBrowsers } from './playwright-browsers.js';

/** A build that cannot go on, in words for the operator. */
export class ImageBuildError extends Error {}

export interface ImageBuildOptions {
  recipe: ImageRecipe;
  /** Where images are kept: `<storeDir>/<version>/` and the `current` link. */
  storeDir: string;
  /** A Debian mirror; by default the first one this host's apt uses. */
  mirror: string | undefined;
  /** pip: `index` tries the package index, `wheels` installs from a folder only, `skip` leaves the layer out. */
  pip: { from: 'index' } | { from: 'wheels'; dir: string } | { from: 'skip' };
  /** Progress lines for the person building. */
  say: (line: string) => void;
}

export interface ImageBuildResult {
  version: string;
  folder: string;
  seconds: number;
  /** Why the pip layer was left out, when it was. */
  pipSkipped: string | undefined;
}

/** The parts of a Debian system the computer never reads: manuals, documentation (licences kept) and translations. */
const LEFT_OUT = ['/usr/share/man/*', '/usr/share/doc/*', '/usr/share/info/*', '/usr/share/locale/*'];

/** Where pip's requirements and wheels go inside the image while it is built. */
const PIP_INSIDE = '/tmp/skillet-pip';
/** What the pip hook says when it could not install the layer (a line of its own, unlike mmdebstrap's echo of the hook). */
const PIP_LEFT_OUT = 'skillet: the pip layer was left out';

/** The first Debian mirror this host's apt names (deb822 or one-line sources), when there is one. */
export function hostDebianMirror(
  files = ['/etc/apt/sources.list.d/debian.sources', '/etc/apt/sources.list'],
): string | undefined {
  for (const file of files) {
    if (!existsSync(file)) continue;
    const text = readFileSync(file, 'utf8');
    const found = /^URIs:\s*(\S+\/debian)\/?\s*$/m.exec(text) ?? /^deb\s+(?:\[[^\]]*\]\s+)?(\S+\/debian)\/?\s/m.exec(text);
    if (found?.[1]) return found[1];
  }
  return undefined;
}

/** This process's environment without Python's and pip's settings, which would follow pip into the image. */
function buildEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(PIP_|PYTHON)/.test(name)));
}

function runCommand(file: string, args: string[], say: (line: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], env: buildEnv() });
    const relay = (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) say(line);
    };
    child.stdout.on('data', relay);
    child.stderr.on('data', relay);
    child.once('error', reject);
    child.once('close', (code) => resolve(code ?? 1));
  });
}

/** mmdebstrap's hooks that lay the npm and pip layers over the Debian system. */
function layerHooks(recipe: ImageRecipe, pip: ImageBuildOptions['pip'], pipFolder: string): string[] {
  const hooks: string[] = [];
  if (recipe.npmPackages.length > 0) {
    // This host's npm, with its registry settings, writes into the image's global prefix.
    const packages = recipe.npmPackages.map(shellQuote).join(' ');
    hooks.push(`npm install --global --prefix "$1/usr/local" --no-audit --no-fund --omit=dev ${packages}`);
  }
  if (pip.from !== 'skip' && recipe.pipRequirements.length > 0) {
    hooks.push(`copy-in ${pipFolder} /tmp`);
    const source = pip.from === 'wheels' ? `--no-index --find-links ${PIP_INSIDE}/wheels` : '--timeout 15 --retries 1';
    // A package index that does not answer leaves the layer out, and the build says so.
    hooks.push(
      `chroot "$1" python3 -m pip install --break-system-packages --no-cache-dir --disable-pip-version-check ${source} ` +
        `-r ${PIP_INSIDE}/requirements.txt || echo "${PIP_LEFT_OUT}" >&2`,
      `rm -rf "$1${PIP_INSIDE}"`,
    );
  }
  return hooks;
}

/**
 * Builds the computer image (DESIGN §14) with mmdebstrap: a Debian system of the recipe's
 * suite and packages, the npm packages globally, the pip layer where it can be had, then the
 * mount points the sandbox needs. Built beside the store and moved in whole, then `current`
 * is pointed at it: a server that started on the image before keeps its own until it restarts.
 */
export async function buildComputerImage(options: ImageBuildOptions): Promise<ImageBuildResult> {
  const { recipe, storeDir, say } = options;
  if (process.getuid?.() !== 0) {
    throw new ImageBuildError('Building the computer image needs root (mmdebstrap installs a Debian system): run it with sudo.');
  }
  const mmdebstrap = ['/usr/bin/mmdebstrap', '/usr/local/bin/mmdebstrap'].find((file) => existsSync(file));
  if (!mmdebstrap) throw new ImageBuildError('mmdebstrap is not installed: apt-get install mmdebstrap, then build again.');
  const started = Date.now();
  await mkdir(storeDir, { recursive: true });
  const work = path.join(storeDir, `.building-${recipe.version}-${process.pid}`);
  await rm(work, { recursive: true, force: true });
  await mkdir(work);
  try {
    const pipFolder = path.join(work, 'skillet-pip');
    await mkdir(pipFolder);
    await writeFile(path.join(pipFolder, 'requirements.txt'), `${recipe.pipRequirements.join('\n')}\n`);
    if (options.pip.from === 'wheels') await cp(options.pip.dir, path.join(pipFolder, 'wheels'), { recursive: true });
    const rootfs = path.join(work, 'rootfs');
    const mirror = options.mirror ?? hostDebianMirror();
    const args = [
      `--variant=${recipe.variant}`,
      `--include=${recipe.debianPackages.join(',')}`,
      ...LEFT_OUT.map((pattern) => `--dpkgopt=path-exclude=${pattern}`),
      '--dpkgopt=path-include=/usr/share/doc/*/copyright',
      ...layerHooks(recipe, options.pip, pipFolder).map((hook) => `--customize-hook=${hook}`),
      recipe.suite,
      rootfs,
      ...(mirror ? [mirror] : []),
    ];
    say(
      `Building computer image ${recipe.version} (${recipe.debianPackages.length} Debian packages, ${recipe.npmPackages.length} npm packages)`,
    );
    const lines: string[] = [];
    const code = await runCommand(mmdebstrap, args, (line) => {
      lines.push(line);
      say(line);
    });
    if (code !== 0) throw new ImageBuildError(`mmdebstrap failed (exit ${code}); its last words: ${lines.slice(-3).join(' / ')}`);
    const pipSkipped = lines.some((line) => line.trim() === PIP_LEFT_OUT)
      ? 'pip could not install the requirements (no package index answered, or a requirement is not there)'
      : options.pip.from === 'skip'
        ? 'left out as asked'
        : undefined;
    await finishRootfs(rootfs);
    const description: ImageDescription = { version: recipe.version, builtAt: new Date().toISOString(), suite: recipe.suite };
    await writeFile(path.join(work, IMAGE_DESCRIPTION), `${JSON.stringify(description, null, 2)}\n`);
    await rm(pipFolder, { recursive: true, force: true });
    const folder = await moveIntoStore(work, storeDir, recipe.version);
    return { version: recipe.version, folder, seconds: Math.round((Date.now() - started) / 1000), pipSkipped };
  } catch (error) {
    await rm(work, { recursive: true, force: true }).catch(() => undefined);
    throw error;
  }
}

/** What the sandbox mounts over and what headless browsers look for, made once in the image. */
async function finishRootfs(rootfs: string): Promise<void> {
  for (const folder of ['opt/skillet', 'var/cache', 'var/lib', 'workspace'])
    await mkdir(path.join(rootfs, folder), { recursive: true });
  await linkPlaywrightBrowsers(rootfs);
}

/** Moves a finished build into the store, points `current` at it, and keeps the one before it (a server may still run on it). */
export async function moveIntoStore(work: string, storeDir: string, version: string): Promise<string> {
  const folder = path.join(storeDir, version);
  const previous = await readlink(path.join(storeDir, CURRENT_IMAGE)).catch(() => undefined);
  if (existsSync(folder)) await rename(folder, `${folder}.replaced-${process.pid}`);
  await rename(work, folder);
  const link = path.join(storeDir, `.${CURRENT_IMAGE}-${process.pid}`);
  await symlink(version, link);
  await rename(link, path.join(storeDir, CURRENT_IMAGE));
  for (const entry of await readdir(storeDir)) {
    if (entry === version || entry === CURRENT_IMAGE || entry === previous || entry.startsWith('.building-')) continue;
    await rm(path.join(storeDir, entry), { recursive: true, force: true });
  }
  return folder;
}

import { existsSync, lstatSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../config.js';
import type { ComputerImage, SkillSandbox } from '../../ports/sandbox.js';
import { namespaceArgs } from '../sandbox.js';
import { HOST_SOFTWARE, SANDBOX_PYTHON, type SoftwareHost } from './computer-software.js';

/** What a build writes beside the root filesystem. */
export interface ImageDescription {
  version: string;
  builtAt: string;
  suite: string;
}

/** The folder of an image store that names the image in use. */
export const CURRENT_IMAGE = 'current';
export const IMAGE_DESCRIPTION = 'image.json';

/**
 * The image in use under `storeDir` (`<storeDir>/current`, a link to a version's folder), or
 * why there is none. A folder that is not an image is a problem, not an absence: the operator
 * pointed at it.
 */
export function findComputerImage(storeDir: string): { image: ComputerImage } | { missing: string } {
  const current = path.join(storeDir, CURRENT_IMAGE);
  if (!existsSync(current)) return { missing: `no computer image is built in ${storeDir}` };
  const folder = realpathSync(current);
  let description: ImageDescription;
  try {
    description = JSON.parse(readFileSync(path.join(folder, IMAGE_DESCRIPTION), 'utf8')) as ImageDescription;
  } catch (error) {
    return { missing: `${folder} holds no readable ${IMAGE_DESCRIPTION} (${(error as Error).message})` };
  }
  const root = path.join(folder, 'rootfs');
  if (!existsSync(path.join(root, 'usr', 'bin', 'python3'))) return { missing: `${root} has no /usr/bin/python3` };
  return { image: { root, version: description.version, builtAt: description.builtAt } };
}

/** Top-level links of a merged-/usr system (/bin -> usr/bin and the like), made again inside. */
const USR_LINKS = ['bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'];

/**
 * bubblewrap's arguments for a sandbox whose system is the image's: its /usr, /etc, /opt and
 * package state read only, nothing of the host's but the run's own `binds` on top.
 */
export function imageViewArgs(root: string, binds: string[]): string[] {
  const args = namespaceArgs([], [], []);
  const last = args.splice(-2);
  if (last[0] !== '--remount-ro') throw new Error("namespaceArgs no longer ends with the root's --remount-ro");
  const system = ['--ro-bind', path.join(root, 'usr'), '/usr'];
  for (const name of USR_LINKS) {
    const host = path.join(root, name);
    const stat = lstatSync(host, { throwIfNoEntry: false });
    if (stat?.isSymbolicLink()) system.push('--symlink', readlinkSync(host), `/${name}`);
    else if (stat?.isDirectory()) system.push('--ro-bind', host, `/${name}`);
  }
  system.push('--ro-bind', path.join(root, 'etc'), '/etc', '--ro-bind', path.join(root, 'opt'), '/opt');
  // Package state (dpkg's list, fontconfig's cache) read only; /var/tmp is the run's /tmp.
  for (const part of ['lib', 'cache']) system.push('--ro-bind', path.join(root, 'var', part), `/var/${part}`);
  system.push('--symlink', '/tmp', '/var/tmp');
  // Node looks for node_modules in every folder up to /: the global packages are found from anywhere.
  system.push('--symlink', '/usr/local/lib/node_modules', '/node_modules');
  return [...args, ...system, ...binds, ...last];
}

/**
 * `sandbox` with the computer image the settings name, when one is built. Without one the
 * host's folders serve, unless the operator named the folder (then the start stops). An image
 * of another recipe than this code's is used, with a warning: nodes should agree.
 */
export function withComputerImage(
  sandbox: SkillSandbox,
  setting: { dir: string; required: boolean },
  expectedVersion: string,
): SkillSandbox {
  const found = findComputerImage(setting.dir);
  if ('missing' in found) {
    if (!setting.required) return sandbox;
    throw new ConfigError(
      `COMPUTER_IMAGE_DIR is ${setting.dir}, but ${found.missing}. Build the image there with: skillet computer build, ` +
        "or leave COMPUTER_IMAGE_DIR unset to give skills this host's own folders.",
    );
  }
  const { image } = found;
  const stale =
    image.version === expectedVersion
      ? undefined
      : `The computer image ${image.version} was built from another recipe than this version's (${expectedVersion}): ` +
        'rebuild it with skillet computer build, so that every node gives skills the same software.';
  return { ...sandbox, computerImage: image, warning: [sandbox.warning, stale].filter(Boolean).join(' ') || undefined };
}

/** Where the computer's software is looked for: inside the image (its Python started in a sandbox on it), or on the host. */
export function softwareHostOf(sandbox: SkillSandbox): SoftwareHost {
  const image = sandbox.computerImage;
  if (!image || !sandbox.bwrapPath) return HOST_SOFTWARE;
  return { root: image.root, python: [sandbox.bwrapPath, ...imageViewArgs(image.root, []), SANDBOX_PYTHON], nodeModules: true };
}

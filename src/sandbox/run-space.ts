import { mkdir, mkdtemp, readFile, realpath, rm, rmdir, statfs } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BoundedFolder, SpaceHost } from '../ports/sandbox.js';
import { shellRelay } from './shell-relay.js';

const run = (file: string, args: string[]) => shellRelay.exec(file, args, COMMAND_TIMEOUT_MS);

/** What a bounded folder may hold: bytes (whole pages, deleted-but-open files included) and entries (files and folders). */
export interface SpaceLimits {
  bytes: number;
  files: number;
}

/** The source name of every run mount: how the ones this server left behind are told from the host's. */
const MOUNT_SOURCE = 'skillet-run';
const TMPFS_MAGIC = 0x01021994;
export const PAGE_BYTES = 4096;
const COMMAND_TIMEOUT_MS = 10_000;

const pagesOf = (bytes: number) => Math.ceil(bytes / PAGE_BYTES);

/** tmpfs's options for `limits`: size in whole pages, one inode more for the folder's own root. */
export function tmpfsOptions(limits: SpaceLimits, owner: { uid: number; gid: number }): string {
  const size = pagesOf(limits.bytes) * PAGE_BYTES;
  return `size=${size},nr_inodes=${limits.files + 1},mode=0700,uid=${owner.uid},gid=${owner.gid},nosuid,nodev`;
}

/**
 * The bound of a run's output folder. tmpfs stores each file in whole pages, so beside the
 * byte limit it leaves a page per allowed entry: a run within its limits always fits. One
 * entry and one page more than allowed make going over visible to the output check, which
 * then names the limit; the kernel refuses anything past that.
 */
export function outputSpace(limits: { outputBytes: number; outputFiles: number }): SpaceLimits {
  return {
    bytes: (pagesOf(limits.outputBytes) + limits.outputFiles + 1) * PAGE_BYTES,
    files: limits.outputFiles + 1,
  };
}

const owner = () => ({ uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 });

async function mountTmpfs(host: SpaceHost, dir: string, limits: SpaceLimits): Promise<void> {
  await run(host.mount, ['-t', 'tmpfs', '-o', tmpfsOptions(limits, owner()), MOUNT_SOURCE, dir]);
}

/** Unmounts `dir`; lazily when something still holds it (a process inside, an open file), so the host side is gone at once. */
async function unmount(host: SpaceHost, dir: string): Promise<void> {
  try {
    await run(host.umount, [dir]);
  } catch {
    try {
      await run(host.umount, ['-l', dir]);
    } catch (error) {
      // Someone else unmounted it meanwhile (a clean-up racing the run's own release): done.
      if (await stillMounted(dir)) throw error;
    }
  }
}

async function stillMounted(dir: string): Promise<boolean> {
  const mountinfo = await readFile('/proc/self/mountinfo', 'utf8');
  return runMountsUnder(mountinfo, path.dirname(dir)).includes(dir);
}

/**
 * Makes `dir` a folder of its own bounded by `limits` where this server can mount (a tmpfs:
 * the kernel refuses writes past the bound, counts deleted-but-open files, and charges the
 * pages to the memory group of the process that writes them). Elsewhere `dir` is an ordinary
 * folder, and a watch of it is all that holds it.
 */
export async function openBoundedFolder(host: SpaceHost | undefined, dir: string, limits: SpaceLimits): Promise<BoundedFolder> {
  await mkdir(dir, { recursive: true });
  if (host) {
    try {
      await mountTmpfs(host, dir, limits);
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
      throw new Error(`mounting a bounded folder failed: ${detail}`);
    }
  }
  let released: Promise<void> | undefined;
  return {
    dir,
    bounded: host !== undefined,
    release() {
      released ??= (async () => {
        if (host) await unmount(host, dir);
        await rm(dir, { recursive: true, force: true });
      })();
      return released;
    },
  };
}

/** What a bounded folder holds now, deleted-but-open files included; undefined when `dir` is not a folder bounded by `limits`. */
export async function boundedUsage(
  dir: string,
  limits: SpaceLimits,
): Promise<{ bytes: number; files: number; full: boolean } | undefined> {
  const space = await statfs(dir).catch(() => undefined);
  // The folder is ours when it is a tmpfs of exactly this bound: nothing else need be carried to the watch.
  if (!space || space.type !== TMPFS_MAGIC) return undefined;
  if (space.blocks * space.bsize !== pagesOf(limits.bytes) * PAGE_BYTES || space.files !== limits.files + 1) return undefined;
  return {
    bytes: (space.blocks - space.bfree) * space.bsize,
    files: space.files - space.ffree - 1,
    full: space.bavail === 0 || space.ffree === 0,
  };
}

/** mountinfo writes space, tab, newline and backslash in a path as octal escapes. */
export function unescapeMountPath(raw: string): string {
  return raw.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** The run mounts under `root`, from /proc/self/mountinfo's text, deepest first so each unmounts. */
export function runMountsUnder(mountinfo: string, root: string): string[] {
  const found: string[] = [];
  for (const line of mountinfo.split('\n')) {
    const [mountPart, fsPart] = line.split(' - ');
    if (!mountPart || !fsPart) continue;
    const mountPoint = unescapeMountPath(mountPart.split(' ')[4] ?? '');
    const [fsType, source] = fsPart.split(' ');
    if (fsType !== 'tmpfs' || source !== MOUNT_SOURCE) continue;
    if (mountPoint.startsWith(`${root}/`)) found.push(mountPoint);
  }
  return found.sort((a, b) => b.length - a.length);
}

/**
 * Unmounts the run mounts a killed server left under `root` (its data folder), so that the
 * folders under them can be removed. A mount stays until unmounted, whatever became of its run.
 */
export async function releaseLeftoverMounts(host: SpaceHost | undefined, root: string): Promise<number> {
  if (!host) return 0;
  // mountinfo shows the path with its links resolved, as mount made it.
  const resolved = await realpath(root).catch(() => path.resolve(root));
  const leftovers = runMountsUnder(await readFile('/proc/self/mountinfo', 'utf8'), resolved);
  for (const dir of leftovers) await unmount(host, dir);
  return leftovers.length;
}

/** Whether this server can mount (root, or CAP_SYS_ADMIN): it mounts and unmounts a throwaway tmpfs to know. */
export async function detectBoundedSpace(
  mount: string | undefined,
  umount: string | undefined,
): Promise<{ host: SpaceHost; reason?: undefined } | { host?: undefined; reason: string }> {
  if (!mount || !umount) return { reason: 'mount and umount (util-linux) are not installed' };
  const host = { mount, umount };
  const trial = await mkdtemp(path.join(tmpdir(), 'skillet-space-'));
  try {
    await mountTmpfs(host, trial, { bytes: PAGE_BYTES, files: 1 });
    await unmount(host, trial);
    return { host };
  } catch (error) {
    const detail = (error as { stderr?: string }).stderr?.trim() || (error as Error).message;
    return { reason: `this server cannot mount a tmpfs (${detail.split('\n')[0]})` };
  } finally {
    await rmdir(trial).catch(() => undefined);
  }
}

import { existsSync, realpathSync } from 'node:fs';
import { PROJECT_ROOT } from '../paths.js';
import { isInside } from './confined-files.js';
import { namespaceArgs } from './sandbox.js';

/**
 * What python3 and bash need, read-only: the binaries, the dynamic loader and libraries, and
 * Python's standard library live under /usr (on merged-/usr systems /bin, /lib and /lib64 are
 * links into it, and ELF binaries name their loader by its /lib64 path); Debian's alternatives
 * (awk, libblas and the like) are links through /etc/alternatives. Unlike Node's, these files
 * cannot be listed with ldd alone, hence whole folders. Not all of /usr: /usr/local and
 * /usr/src are where a server is often installed (Docker's /usr/src/app), with its data
 * folder beside it. The rest of /etc stays hidden too.
 */
export const SYSTEM_DIRS = [
  '/usr/bin',
  '/usr/lib',
  '/usr/lib64',
  '/usr/libexec',
  '/usr/share',
  '/bin',
  '/lib',
  '/lib64',
  '/etc/alternatives',
].filter((dir) => existsSync(dir));

/** This server's code and working folder (where DATA_DIR is by default), should a system folder above hold them. */
const SERVER_DIRS_TO_HIDE = [...new Set([PROJECT_ROOT, process.cwd()].map(realOrSelf))].filter((dir) =>
  SYSTEM_DIRS.some((system) => isInside(realOrSelf(system), dir)),
);

function realOrSelf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * bubblewrap's arguments for a sandbox that sees the system folders (and `readOnly`), never
 * this server's own folders, and `binds` (bubblewrap bind arguments) on top.
 */
export function systemViewArgs(readOnly: string[], binds: string[]): string[] {
  const args = namespaceArgs([...SYSTEM_DIRS, ...readOnly], [], []);
  // The hiding tmpfs must come after the system binds and before the run's, which may lie under it.
  const last = args.splice(-2);
  if (last[0] !== '--remount-ro') throw new Error("namespaceArgs no longer ends with the root's --remount-ro");
  const hide = SERVER_DIRS_TO_HIDE.flatMap((dir) => ['--size', '1048576', '--tmpfs', dir]);
  // Read-only once the binds inside it are made, or it would be a writable (memory-backed) folder.
  const seal = SERVER_DIRS_TO_HIDE.flatMap((dir) => ['--remount-ro', dir]);
  return [...args, ...hide, ...binds, ...seal, ...last];
}

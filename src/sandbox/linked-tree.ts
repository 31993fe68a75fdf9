import { copyFile, link, mkdir, readdir, readlink, symlink } from 'node:fs/promises';
import path from 'node:path';

/** The tree held more entries than it may: placing it would cost more than starting a computer. */
export class TreeTooLarge extends Error {}

/**
 * Recreates the tree at `from` inside `to` (which exists): folders made, files hard-linked
 * (copied where a link cannot be made: another filesystem, or a file the server does not
 * own), symbolic links recreated as links, never followed, so a link can only point where it
 * pointed before. Anything else (a socket, a device) is left out. Throws TreeTooLarge past
 * `maxEntries`, leaving what was placed for the caller to remove.
 */
export async function linkTree(from: string, to: string, maxEntries: number): Promise<number> {
  let placed = 0;
  const walk = async (source: string, target: string): Promise<void> => {
    for (const entry of await readdir(source, { withFileTypes: true })) {
      placed += 1;
      if (placed > maxEntries) throw new TreeTooLarge(`more than ${maxEntries} entries in ${from}`);
      const sourcePath = path.join(source, entry.name);
      const targetPath = path.join(target, entry.name);
      if (entry.isDirectory()) {
        await mkdir(targetPath);
        await walk(sourcePath, targetPath);
      } else if (entry.isFile()) {
        await link(sourcePath, targetPath).catch(() => copyFile(sourcePath, targetPath));
      } else if (entry.isSymbolicLink()) {
        await symlink(await readlink(sourcePath), targetPath);
      }
    }
  };
  await walk(from, to);
  return placed;
}

import { constants } from 'node:fs';
import { lstat, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { isBundlePath } from './bundle.js';

/** A file a run wrote into its scratch folder: its path in the bundle, and where it is now. */
export interface ScratchFile {
  path: string;
  absolute: string;
}

/**
 * The regular files under `root` with bundle paths, and how many entries (folders too) the
 * output holds; links and odd entries are not followed, and `skipped` (a folder that is not
 * output) is in neither.
 */
export async function scratchFiles(
  root: string,
  skipped: string | undefined,
): Promise<{ files: ScratchFile[]; entries: number }> {
  const found = await readdir(root, { withFileTypes: true, recursive: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const files: ScratchFile[] = [];
  let entries = 0;
  for (const entry of found) {
    const absolute = path.join(entry.parentPath, entry.name);
    const relative = path.relative(root, absolute).split(path.sep).join('/');
    if (skipped && (relative === skipped || relative.startsWith(`${skipped}/`))) continue;
    entries += 1;
    if (!entry.isFile()) continue;
    if (!isBundlePath(relative))
      throw new Error(`the skill wrote a file whose name cannot be served: ${JSON.stringify(relative)}`);
    files.push({ path: relative, absolute });
  }
  return { files: files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), entries };
}

/** Bytes of the files, as their entries say now (a link is not followed). */
export async function sizeOf(files: ScratchFile[]): Promise<number> {
  let bytes = 0;
  for (const file of files) bytes += (await lstat(file.absolute)).size;
  return bytes;
}

/** Opens without following a link, so a skill cannot point its output at a file of the server. */
export async function openRegularFile(absolute: string) {
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW);
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new Error(`not a regular file: ${absolute}`);
  }
  return handle;
}

import { closeSync, constants, type Dir, lstatSync, opendirSync, openSync, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, readlink, realpath, unlink } from 'node:fs/promises';
import path from 'node:path';

/** A request a tool turns down; its message is written for the model and names no server path. */
export class ToolRefused extends Error {}

const READ_CAP_BYTES = 64 * 1024;
const LISTED_PER_FOLDER = 500;

/** The segments of a relative path from the model, refusing absolute paths, `..` and NUL bytes. */
export function relativeParts(raw: string): string[] {
  if (raw.includes('\0')) throw new ToolRefused('The path contains a NUL byte.');
  if (raw.length > 4096) throw new ToolRefused('The path is too long.');
  if (path.isAbsolute(raw) || raw.startsWith('\\') || /^[A-Za-z]:/.test(raw)) {
    throw new ToolRefused(`The path "${raw}" is absolute; give a path relative to the folder instead.`);
  }
  const parts = raw.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) throw new ToolRefused(`The path "${raw}" contains "..", which is not allowed.`);
  if (parts.length === 0) throw new ToolRefused(`The path "${raw}" names no file.`);
  return parts;
}

/** Whether `candidate` lies strictly below `root` (both absolute and free of links). */
export function isInside(root: string, candidate: string): boolean {
  return candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** Splits off a leading `skill/` or `output/`; the rest is a checked relative path. */
export function sectioned(raw: string): { section: 'skill' | 'output' | undefined; parts: string[] } {
  const parts = relativeParts(raw);
  const [first, ...rest] = parts;
  if ((first === 'skill' || first === 'output') && rest.length > 0) return { section: first, parts: rest };
  return { section: undefined, parts };
}

/** Where an open file really is: the kernel's answer, so no link swapped in after a check can fool it. */
async function openedPath(handle: FileHandle): Promise<string> {
  return readlink(`/proc/self/fd/${handle.fd}`);
}

/** Opens a regular file inside `root` for reading, refusing anything that leads outside. */
export async function openInside(root: string, parts: string[], shown: string): Promise<FileHandle> {
  const realRoot = await realpath(root);
  let real: string;
  try {
    real = await realpath(path.join(realRoot, ...parts));
  } catch {
    throw new ToolRefused(`There is no file "${shown}".`);
  }
  if (!isInside(realRoot, real)) throw new ToolRefused(`"${shown}" leads outside its folder; refused.`);
  // O_NONBLOCK: a FIFO planted by a script must not hang the open.
  const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!isInside(realRoot, await openedPath(handle))) throw new ToolRefused(`"${shown}" leads outside its folder; refused.`);
    if (!(await handle.stat()).isFile()) throw new ToolRefused(`"${shown}" is not a regular file.`);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

export async function readText(handle: FileHandle, shown: string): Promise<string> {
  const { size } = await handle.stat();
  const buffer = Buffer.alloc(Math.min(size, READ_CAP_BYTES));
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  const bytes = buffer.subarray(0, bytesRead);
  const cut = size > bytesRead;
  let text: string;
  try {
    if (bytes.includes(0)) throw new Error('NUL byte');
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes, { stream: cut });
  } catch {
    throw new ToolRefused(`"${shown}" is a binary file (${size} bytes); it cannot be shown as text.`);
  }
  return cut ? `${text}\n\n[cut: "${shown}" has ${size} bytes; only the first ${bytesRead} are shown]` : text;
}

const missingIsUndefined = (error: NodeJS.ErrnoException) => {
  if (error.code === 'ENOENT') return undefined;
  throw error;
};

/** Where a write into `root` would land: the file, what is there now, and the folders still to be made. */
export interface WritePlan {
  target: string;
  existing: Stats | undefined;
  /** Folders to create, outermost first. */
  missing: string[];
}

/**
 * Checks the path of a write into `root` (real, free of links) without changing anything, so the
 * caller can weigh the write against its limits before a folder is made.
 */
export async function planWrite(root: string, parts: string[], shown: string): Promise<WritePlan> {
  // No component may be a link: one planted by a script must not carry the write elsewhere.
  let dir = root;
  const missing: string[] = [];
  for (const part of parts.slice(0, -1)) {
    dir = path.join(dir, part);
    const info = missing.length > 0 ? undefined : await lstat(dir).catch(missingIsUndefined);
    if (!info) missing.push(dir);
    else if (info.isSymbolicLink()) throw new ToolRefused(`"${shown}" passes through a symbolic link; refused.`);
    else if (!info.isDirectory()) throw new ToolRefused(`"${shown}": a part of the path is a file, not a folder.`);
  }
  const target = path.join(dir, parts.at(-1) ?? '');
  const existing = missing.length > 0 ? undefined : await lstat(target).catch(missingIsUndefined);
  if (existing?.isSymbolicLink()) throw new ToolRefused(`"${shown}" is a symbolic link; refused.`);
  if (existing && !existing.isFile()) throw new ToolRefused(`"${shown}" exists and is not a regular file.`);
  return { target, existing, missing };
}

/**
 * Makes the plan's missing folders and opens its file for writing, not yet truncated; refuses,
 * and removes a file it created, when the kernel places the open file outside `root`.
 */
export async function openForWrite(root: string, plan: WritePlan, shown: string): Promise<FileHandle> {
  const { target, existing, missing } = plan;
  for (const folder of missing) await mkdir(folder); // not recursive: fails rather than follow a raced-in link
  // No O_TRUNC until the kernel confirms where the file is; O_EXCL when new, so a raced-in link fails.
  const flags =
    constants.O_WRONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | (existing ? 0 : constants.O_CREAT | constants.O_EXCL);
  const handle = await open(target, flags, 0o644).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ELOOP') throw new ToolRefused(`"${shown}" is a symbolic link; refused.`);
    throw error;
  });
  try {
    const where = await openedPath(handle);
    if (!isInside(root, where) || !(await handle.stat()).isFile()) {
      if (!existing) await unlink(where).catch(() => undefined);
      throw new ToolRefused(`"${shown}" changed while it was being written; refused.`);
    }
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Entries one listing reads at most: a folder a skill filled with files cannot hold the server up. */
const WALKED_PER_LISTING = 10_000;
/** Folders deeper than this are not entered: each one entered holds two descriptors until it is read. */
const LISTED_DEPTH = 64;

interface Listed {
  rel: string;
  /** A file's size in bytes; undefined for a symbolic link, which is never followed. */
  size?: number;
}

/** A folder being read, held open: its entries are reached through the descriptor, never by name from the root. */
interface OpenFolder {
  fd: number;
  dir: Dir;
  rel: string;
}

/** A folder opened by its descriptor's path, refusing a symbolic link; undefined if it is not a folder (any more). */
function openFolder(at: string, rel: string): OpenFolder | undefined {
  let fd: number;
  try {
    fd = openSync(at, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch {
    return undefined; // gone, or swapped for a link or a file since it was read
  }
  try {
    return { fd, dir: opendirSync(`/proc/self/fd/${fd}`), rel };
  } catch {
    closeSync(fd);
    return undefined;
  }
}

function closeFolder(folder: OpenFolder): void {
  folder.dir.closeSync();
  closeSync(folder.fd);
}

/**
 * The files and symbolic links under `root` (its real path), sorted, and why the walk
 * stopped early, if it did. Each folder is held open while it is read, and what is in it is
 * reached through /proc/self/fd, so a run that swaps a folder for a link mid-walk cannot
 * lead the walk outside; links are named, never followed.
 * The walk is synchronous: a folder a run writes is a handful of local system calls, which
 * the thread pool would turn into as many rounds of a busy event loop, each waiting behind
 * the database work of every run (most of what listing a run's files took). The bounds keep
 * a walk to a few milliseconds.
 */
function walk(root: string): { files: Listed[]; cut?: 'entries' | 'depth' } {
  const files: Listed[] = [];
  const top = openFolder(root, '');
  const open = top ? [top] : [];
  let walked = 0;
  let cut: 'entries' | 'depth' | undefined;
  try {
    for (let folder = open.at(-1); folder; folder = open.at(-1)) {
      const entry = folder.dir.readSync();
      if (entry === null) {
        closeFolder(folder);
        open.pop();
        continue;
      }
      if (++walked > WALKED_PER_LISTING) {
        cut = 'entries';
        break;
      }
      const rel = folder.rel === '' ? entry.name : `${folder.rel}/${entry.name}`;
      const at = `/proc/self/fd/${folder.fd}/${entry.name}`;
      if (entry.isDirectory()) {
        if (open.length >= LISTED_DEPTH) cut ??= 'depth';
        else {
          const inner = openFolder(at, rel);
          if (inner) open.push(inner);
        }
      } else if (entry.isSymbolicLink()) files.push({ rel });
      else if (entry.isFile()) files.push({ rel, size: lstatSync(at, { throwIfNoEntry: false })?.size ?? 0 });
    }
  } finally {
    for (const folder of open) closeFolder(folder);
  }
  files.sort((a, b) => a.rel.localeCompare(b.rel));
  return cut ? { files, cut } : { files };
}

export function listing(root: string, prefix: string): string[] {
  const { files, cut } = walk(root);
  const lines = files
    .slice(0, LISTED_PER_FOLDER)
    .map(({ rel, size }) => `${prefix}/${rel} (${size === undefined ? 'symbolic link' : `${size} bytes`})`);
  const more = files.length - Math.min(files.length, LISTED_PER_FOLDER);
  if (cut === 'entries') lines.push(`… and more files: the listing stopped after ${WALKED_PER_LISTING} entries`);
  else if (more > 0) lines.push(`… and ${more} more files`);
  if (cut === 'depth') lines.push(`… and what is in folders more than ${LISTED_DEPTH} deep, not listed`);
  return lines.length > 0 ? lines : ['(none)'];
}

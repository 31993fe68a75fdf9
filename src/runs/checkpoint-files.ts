import { constants, createReadStream } from 'node:fs';
import { lstat, mkdir, open, readdir, readlink, realpath } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { BlobStore, StagedBlob } from '../ports/blob-store.js';

/** A file of a checkpoint: where it is in its folder, and the blob that holds it. */
export interface CheckpointFile {
  path: string;
  sha256: string;
  size: number;
}

/** What a folder's last snapshot saw of a file, so an unchanged file is not read again. */
interface Seen extends CheckpointFile {
  mtimeMs: number;
}

/** A folder's files as they changed since its last snapshot. */
export interface FolderChanges {
  /** Files new or changed, each staged as a blob (committed by the caller). */
  changed: { file: CheckpointFile; blob: StagedBlob | undefined }[];
  removed: string[];
  /** The blobs of the versions these changes replace or remove: the checkpoint names them no more once saved. */
  superseded: string[];
}

/** What one snapshot may take: how many changed files, and how many bytes of them. */
export interface SnapshotLimits {
  files: number;
  bytes: number;
}

/** A relative path made by the walk below: no empty, dot or dot-dot segment, never absolute. */
export function isCheckpointPath(relative: string): boolean {
  if (relative === '' || relative.startsWith('/') || relative.includes('\0')) return false;
  return relative.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/**
 * Opens a file of `root` for reading, refusing anything but a regular file that is really
 * inside it. The sandbox may still run while a snapshot is taken (a computer's shell lives
 * between calls), so a folder on the way can be swapped for a link at any moment: the check
 * is made on the opened file itself, through the path the kernel gives its descriptor.
 */
async function openInsideRoot(realRoot: string, absolute: string) {
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const opened = await readlink(`/proc/self/fd/${handle.fd}`);
    const stats = await handle.stat();
    if (opened.startsWith(`${realRoot}/`) && stats.isFile()) return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
  await handle.close();
  return undefined;
}

/**
 * Watches one of a run's folders: each snapshot stages the files that changed since the last
 * one (by size and modification time, read again only then) and names those removed.
 * Links, devices and anything outside the folder are never read.
 */
export class FolderSnapshots {
  readonly #seen = new Map<string, Seen>();

  constructor(
    private readonly root: string,
    private readonly blobs: BlobStore,
    known: readonly CheckpointFile[] = [],
  ) {
    // Files put back from a checkpoint are read once more, as their times are new.
    for (const file of known) this.#seen.set(file.path, { ...file, mtimeMs: -1 });
  }

  /**
   * The files changed since the last snapshot, staged; `tooMany` when more files changed
   * than `limits` allows (a step that writes thousands of files would spend longer storing
   * them than the run may last), `tooLarge` when their bytes are more (nothing stays staged
   * then). After either, this folder's snapshots are not to be used again.
   */
  async changes(limits: SnapshotLimits): Promise<FolderChanges | 'tooMany' | 'tooLarge'> {
    const realRoot = await realpath(this.root).catch(() => undefined);
    const present = new Set<string>();
    const candidates: { absolute: string; relative: string }[] = [];
    let candidateBytes = 0;
    if (realRoot) {
      const entries = await readdir(realRoot, { withFileTypes: true, recursive: true }).catch(() => []);
      for (const entry of entries) {
        if (!entry.isFile()) continue;
        const absolute = path.join(entry.parentPath, entry.name);
        const relative = path.relative(realRoot, absolute).split(path.sep).join('/');
        if (!isCheckpointPath(relative)) continue;
        // A first look by lstat (which follows no link) finds what may have changed; only those are opened.
        const stats = await lstat(absolute).catch(() => undefined);
        if (!stats?.isFile()) continue;
        present.add(relative);
        const before = this.#seen.get(relative);
        if (!before || before.size !== stats.size || before.mtimeMs !== stats.mtimeMs) {
          candidates.push({ absolute, relative });
          candidateBytes += stats.size;
        }
      }
    }
    if (candidates.length > limits.files) return 'tooMany';
    // Sizes as listed, so a step over the budget costs no reading.
    if (candidateBytes > limits.bytes) return 'tooLarge';
    const changed: FolderChanges['changed'] = [];
    const superseded: string[] = [];
    let stagedBytes = 0;
    for (const { absolute, relative } of candidates) {
      const file = realRoot ? await this.#snapshotFile(realRoot, absolute, relative).catch(() => undefined) : undefined;
      if (!file) present.delete(relative);
      else if (file.changed) {
        changed.push({ file: file.entry, blob: file.blob });
        stagedBytes += file.entry.size;
        if (file.replaced) superseded.push(file.replaced);
      }
    }
    // A file that grew between the listing and its reading counts as read.
    if (stagedBytes > limits.bytes) {
      await Promise.all(changed.flatMap(({ blob }) => (blob ? [this.blobs.discard(blob)] : [])));
      return 'tooLarge';
    }
    const removed = [...this.#seen.keys()].filter((known) => !present.has(known));
    for (const gone of removed) {
      superseded.push((this.#seen.get(gone) as Seen).sha256);
      this.#seen.delete(gone);
    }
    return { changed, removed, superseded };
  }

  async #snapshotFile(realRoot: string, absolute: string, relative: string) {
    const opened = await openInsideRoot(realRoot, absolute);
    if (!opened) return undefined;
    const { handle, stats } = opened;
    try {
      const before = this.#seen.get(relative);
      if (before && before.size === stats.size && before.mtimeMs === stats.mtimeMs) {
        return { entry: before, blob: undefined, changed: false, replaced: undefined };
      }
      const blob = await this.blobs.stage(createReadStream('', { fd: handle, autoClose: false }));
      const entry = { path: relative, sha256: blob.sha256, size: blob.size };
      this.#seen.set(relative, { ...entry, mtimeMs: stats.mtimeMs });
      // The same bytes as before (touched, not changed): nothing new to store or record.
      if (before?.sha256 === blob.sha256) {
        await this.blobs.discard(blob);
        return { entry, blob: undefined, changed: false, replaced: undefined };
      }
      return { entry, blob, changed: true, replaced: before?.sha256 };
    } finally {
      await handle.close();
    }
  }
}

/** Writes a checkpoint's files into an empty folder of a run on a new worker. */
export async function restoreFiles(root: string, files: readonly CheckpointFile[], blobs: BlobStore): Promise<void> {
  for (const file of files) {
    if (!isCheckpointPath(file.path))
      throw new Error(`a checkpoint holds a path that cannot be restored: ${JSON.stringify(file.path)}`);
    const target = path.join(root, ...file.path.split('/'));
    await mkdir(path.dirname(target), { recursive: true });
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    // The stream closes the handle once it has written the blob out.
    const handle = await open(target, flags, 0o644);
    await pipeline(blobs.read(file.sha256), handle.createWriteStream());
  }
}

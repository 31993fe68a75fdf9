import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat, unlink, utimes } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { BlobStore, ScopedBlobStore, StagedBlob } from '../ports/blob-store.js';
import { assertBlobName, clearFolder, isBlobName, stageFile, Turns } from './blob-files.js';

/** Where scoped stores live, beside a store's own blobs (whose names are hex only, so the two never mix). */
export const SCOPES_FOLDER = 'scopes';

/** A scope's name goes into paths and object keys: letters, digits and dashes only. */
export function isScopeName(name: string): boolean {
  return /^[A-Za-z0-9-]{1,100}$/.test(name);
}

export function assertScopeName(name: string): void {
  if (!isScopeName(name)) throw new Error(`not a scope name: ${JSON.stringify(name)}`);
}

/** Large reads: blobs are sent whole, mostly to sockets. */
const READ_CHUNK = 1024 * 1024;

/** Blobs in a folder: this machine's disk, or a mount every node of a cluster shares. */
export class LocalBlobStore implements BlobStore {
  readonly #root: string;
  readonly #temporary: string;
  readonly #turns = new Turns();

  constructor(root: string) {
    this.#root = root;
    this.#temporary = path.join(root, 'tmp');
  }

  pathOf(sha256: string): string {
    assertBlobName(sha256);
    return path.join(this.#root, sha256.slice(0, 2), sha256);
  }

  stage(source: Readable): Promise<StagedBlob> {
    return stageFile(this.#temporary, source);
  }

  async commit(staged: StagedBlob): Promise<void> {
    const target = this.pathOf(staged.sha256);
    await mkdir(path.dirname(target), { recursive: true });
    // Replacing an existing blob is harmless: same name, same bytes. A staged file already
    // gone while its blob is there was committed before: a retry after the transaction that
    // recorded it was cut off, which must not fail the run's files.
    await rename(staged.tempPath, target).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT' || !(await isFile(target))) throw error;
    });
    // Young from now on, however long staging took: collection in a cluster goes by age.
    const now = new Date();
    await utimes(target, now, now);
  }

  async discard(staged: StagedBlob): Promise<void> {
    await unlink(staged.tempPath).catch(ignoreMissing);
  }

  read(sha256: string): Readable {
    return createReadStream(this.pathOf(sha256), { highWaterMark: READ_CHUNK });
  }

  async readAll(sha256: string, size: number): Promise<Buffer> {
    const handle = await open(this.pathOf(sha256), 'r');
    try {
      const buffer = Buffer.allocUnsafe(size);
      let filled = 0;
      while (filled < size) {
        const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
        if (bytesRead === 0) throw new Error(`blob ${sha256} is shorter than ${size} bytes`);
        filled += bytesRead;
      }
      return buffer;
    } finally {
      await handle.close();
    }
  }

  async remove(sha256: string, ifOlderThan?: Date): Promise<boolean> {
    const file = this.pathOf(sha256);
    if (ifOlderThan && !(await this.#olderThan(file, ifOlderThan))) return false;
    return unlink(file).then(
      () => true,
      (error: NodeJS.ErrnoException) => ignoreMissing(error).then(() => false),
    );
  }

  async names(olderThan?: Date): Promise<string[]> {
    const found: string[] = [];
    for (const shard of await readdir(this.#root).catch(() => [])) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of await readdir(path.join(this.#root, shard)).catch(() => [])) {
        if (!isBlobName(name)) continue;
        if (olderThan && !(await this.#olderThan(path.join(this.#root, shard, name), olderThan))) continue;
        found.push(name);
      }
    }
    return found;
  }

  clearTemporary(olderThan?: Date): Promise<void> {
    return clearFolder(this.#temporary, olderThan);
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.#turns.run(work);
  }

  scope(name: string): ScopedBlobStore {
    assertScopeName(name);
    return new LocalScope(path.join(this.#root, SCOPES_FOLDER, name));
  }

  async scopes(): Promise<string[]> {
    return (await readdir(path.join(this.#root, SCOPES_FOLDER)).catch(() => [])).filter(isScopeName);
  }

  async #olderThan(file: string, moment: Date): Promise<boolean> {
    const stats = await stat(file).catch(() => undefined);
    return stats !== undefined && stats.mtimeMs < moment.getTime();
  }
}

/** A scoped store in a folder of its own, removed whole. */
class LocalScope extends LocalBlobStore implements ScopedBlobStore {
  readonly #folder: string;

  constructor(folder: string) {
    super(folder);
    this.#folder = folder;
  }

  drop(): Promise<void> {
    return rm(this.#folder, { recursive: true, force: true });
  }
}

async function isFile(file: string): Promise<boolean> {
  return (await stat(file).catch(() => undefined))?.isFile() === true;
}

async function ignoreMissing(error: NodeJS.ErrnoException): Promise<void> {
  if (error.code !== 'ENOENT') throw error;
}

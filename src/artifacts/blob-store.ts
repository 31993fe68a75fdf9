import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 as zlibCrc32 } from 'node:zlib';

/** A blob copied into a temporary file and hashed, not yet visible under its name. */
export interface StagedBlob {
  sha256: string;
  /** CRC-32 of the bytes, as ZIP archives need it. */
  crc32: number;
  size: number;
  tempPath: string;
}

/**
 * Content-addressed file storage: a blob's name is the SHA-256 of its bytes. Writes go to
 * a temporary file that is flushed to disk and then renamed, so a crash never leaves a
 * partial file under a real name. Names change only inside `exclusive`, which is also
 * where callers record or drop references, so that a blob about to be referenced again is
 * never collected in between.
 */
export interface BlobStore {
  stage(source: Readable): Promise<StagedBlob>;
  commit(staged: StagedBlob): Promise<void>;
  discard(staged: StagedBlob): Promise<void>;
  read(sha256: string): Readable;
  /** A blob of known size, whole: fewer system calls than a stream for small blobs. */
  readAll(sha256: string, size: number): Promise<Buffer>;
  /** A local file path, for stores on this machine's disk. */
  pathOf(sha256: string): string;
  remove(sha256: string): Promise<void>;
  /** Every stored blob's name. */
  names(): Promise<string[]>;
  /** Removes temporary files left by a crash; only safe when nothing is staging. */
  clearTemporary(): Promise<void>;
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;
/** Large reads: blobs are sent whole, mostly to sockets. */
const READ_CHUNK = 1024 * 1024;

export class LocalBlobStore implements BlobStore {
  readonly #root: string;
  readonly #temporary: string;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(root: string) {
    this.#root = root;
    this.#temporary = path.join(root, 'tmp');
  }

  pathOf(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) throw new Error(`not a blob name: ${sha256}`);
    return path.join(this.#root, sha256.slice(0, 2), sha256);
  }

  async stage(source: Readable): Promise<StagedBlob> {
    await mkdir(this.#temporary, { recursive: true });
    const tempPath = path.join(this.#temporary, randomUUID());
    const hash = createHash('sha256');
    let crc32 = 0;
    let size = 0;
    const measure = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        crc32 = zlibCrc32(chunk, crc32);
        size += chunk.length;
        done(null, chunk);
      },
    });
    try {
      await pipeline(source, measure, createWriteStream(tempPath, { flags: 'wx' }));
      const handle = await open(tempPath, 'r');
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch (error) {
      await rm(tempPath, { force: true });
      throw error;
    }
    return { sha256: hash.digest('hex'), crc32, size, tempPath };
  }

  async commit(staged: StagedBlob): Promise<void> {
    const target = this.pathOf(staged.sha256);
    await mkdir(path.dirname(target), { recursive: true });
    // Replacing an existing blob is harmless: same name, same bytes.
    await rename(staged.tempPath, target);
  }

  async discard(staged: StagedBlob): Promise<void> {
    await rm(staged.tempPath, { force: true });
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

  async remove(sha256: string): Promise<void> {
    await unlink(this.pathOf(sha256)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }

  async names(): Promise<string[]> {
    const found: string[] = [];
    for (const shard of await readdir(this.#root).catch(() => [])) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of await readdir(path.join(this.#root, shard))) {
        if (SHA256_HEX.test(name)) found.push(name);
      }
    }
    return found;
  }

  async clearTemporary(): Promise<void> {
    await rm(this.#temporary, { recursive: true, force: true });
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.#queue.then(work, work);
    this.#queue = turn.catch(() => undefined);
    return turn;
  }
}

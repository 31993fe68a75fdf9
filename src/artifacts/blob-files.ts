import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { crc32 as zlibCrc32 } from 'node:zlib';
import type { StagedBlob } from '../ports/blob-store.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Whether `name` can be a blob's name; nothing else may reach a path or a key. */
export function isBlobName(name: string): boolean {
  return SHA256_HEX.test(name);
}

export function assertBlobName(name: string): void {
  if (!isBlobName(name)) throw new Error(`not a blob name: ${name}`);
}

/**
 * Copies `source` into a new file under `dir`, hashing it on the way, and flushes the file
 * to disk, so what a store later commits is whole. The file is gone if copying fails.
 */
export async function stageFile(dir: string, source: Readable): Promise<StagedBlob> {
  await mkdir(dir, { recursive: true });
  const tempPath = path.join(dir, randomUUID());
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

/**
 * Empties a folder of temporary files: all of it, or with `olderThan` only the entries last
 * written before then (another process may be writing the younger ones).
 */
export async function clearFolder(dir: string, olderThan?: Date): Promise<void> {
  if (!olderThan) {
    await rm(dir, { recursive: true, force: true });
    return;
  }
  for (const name of await readdir(dir).catch(() => [])) {
    const entry = path.join(dir, name);
    const stats = await stat(entry).catch(() => undefined);
    if (stats && stats.mtimeMs < olderThan.getTime()) await rm(entry, { recursive: true, force: true });
  }
}

/** Runs sections one at a time, in order, whether the one before failed or not. */
export class Turns {
  #queue: Promise<unknown> = Promise.resolve();

  run<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.#queue.then(work, work);
    this.#queue = turn.catch(() => undefined);
    return turn;
  }
}

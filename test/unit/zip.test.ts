import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { type ZipEntry, zipBundle } from '../../src/artifacts/zip.js';
import type { BlobStore } from '../../src/ports/blob-store.js';
import { unzip } from '../helpers/artifacts.js';

/** Blobs held in memory by name; only the reading side of the store is needed here. */
function memoryBlobs(contents: Map<string, Buffer>): BlobStore {
  const blob = (name: string) => contents.get(name) ?? Buffer.alloc(0);
  const unused = () => {
    throw new Error('not used by the ZIP writer');
  };
  return {
    read: (name) => Readable.from([blob(name)]),
    readAll: async (name) => blob(name),
    stage: unused,
    commit: unused,
    discard: unused,
    pathOf: unused,
    remove: unused,
    names: unused,
    clearTemporary: unused,
    exclusive: unused,
    scope: unused,
    scopes: unused,
  };
}

async function archive(files: { path: string; data: Buffer }[]) {
  const contents = new Map(files.map((file, i) => [String(i).padStart(64, '0'), file.data]));
  const entries: ZipEntry[] = files.map((file, i) => ({
    path: file.path,
    sha256: String(i).padStart(64, '0'),
    size: file.data.length,
    crc32: crc32(file.data),
  }));
  const { stream, size } = zipBundle(memoryBlobs(contents), entries, new Date('2026-11-22T10:20:30Z'));
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return { bytes: Buffer.concat(chunks), size };
}

describe('zipBundle', () => {
  it('writes a stored archive that an independent reader extracts, of exactly the announced size', async () => {
    const files = [
      { path: 'index.html', data: Buffer.from('<h1>hi</h1>') },
      { path: 'dir/ünïcode 東京.txt', data: Buffer.from('text') },
      { path: 'empty.bin', data: Buffer.alloc(0) },
      { path: 'big.bin', data: Buffer.alloc(3 * 1024 * 1024, 7) },
    ];
    const { bytes, size } = await archive(files);
    expect(bytes.length).toBe(size);
    const entries = await unzip(bytes);
    expect([...entries.keys()]).toEqual(files.map((file) => file.path));
    for (const file of files) expect(entries.get(file.path)?.equals(file.data), file.path).toBe(true);
  });

  it('switches to ZIP64 end records past 65,534 entries', async () => {
    const files = Array.from({ length: 70_000 }, (_, i) => ({ path: `f/${i}`, data: Buffer.from(String(i)) }));
    const { bytes, size } = await archive(files);
    expect(bytes.length).toBe(size);
    expect(bytes.includes(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBe(true);
    const entries = await unzip(bytes);
    expect(entries.size).toBe(70_000);
    expect(entries.get('f/69999')?.toString()).toBe('69999');
  });
});

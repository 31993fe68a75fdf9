import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../src/artifacts/blob-store.js';

let root: string;
let store: LocalBlobStore;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'skillet-blobs-'));
  store = new LocalBlobStore(root);
});
afterEach(() => rm(root, { recursive: true, force: true }));

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('LocalBlobStore', () => {
  it('a staged blob is hashed but has no name until it is committed', async () => {
    const data = Buffer.from('hello blobs');
    const staged = await store.stage(Readable.from([data.subarray(0, 5), data.subarray(5)]));
    expect(staged).toMatchObject({ sha256: sha256(data), size: data.length });
    expect(await store.names()).toEqual([]);
    expect(existsSync(staged.tempPath)).toBe(true);
    await store.commit(staged);
    expect(await store.names()).toEqual([sha256(data)]);
    expect(await readFile(store.pathOf(sha256(data)))).toEqual(data);
    expect(existsSync(staged.tempPath)).toBe(false);
  });

  it('what a crash leaves while staging is only temporary, and clearing removes it', async () => {
    const failing = new Readable({
      read() {
        this.push(Buffer.alloc(1024, 1));
        this.destroy(new Error('the writer died'));
      },
    });
    await expect(store.stage(failing)).rejects.toThrow('the writer died');
    const abandoned = await store.stage(Readable.from([Buffer.from('never committed')]));
    expect(await store.names()).toEqual([]);
    await store.clearTemporary();
    expect(existsSync(abandoned.tempPath)).toBe(false);
    expect(await readdir(root)).toEqual([]);
  });

  it('the same bytes committed twice are one blob; remove is idempotent', async () => {
    const data = Buffer.from('same');
    await store.commit(await store.stage(Readable.from([data])));
    await store.commit(await store.stage(Readable.from([data])));
    expect(await store.names()).toEqual([sha256(data)]);
    await store.remove(sha256(data));
    await store.remove(sha256(data));
    expect(await store.names()).toEqual([]);
  });

  it('refuses a name that is not a SHA-256, so no name reaches outside the store', () => {
    for (const name of ['../../etc/passwd', 'ab', `${'a'.repeat(63)}/`, 'A'.repeat(64)]) {
      expect(() => store.pathOf(name), name).toThrow('not a blob name');
    }
  });

  it('exclusive sections run one at a time, in order, even when one fails', async () => {
    const log: string[] = [];
    const section = (name: string, fail = false) =>
      store.exclusive(async () => {
        log.push(`${name} in`);
        await new Promise((resolve) => setTimeout(resolve, 5));
        log.push(`${name} out`);
        if (fail) throw new Error(name);
      });
    const results = await Promise.allSettled([section('a'), section('b', true), section('c')]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(log).toEqual(['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
  });
});

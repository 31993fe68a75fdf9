import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { watchFolderTree } from '../../src/sandbox/folder-watch.js';

const cleanUps: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanUp of cleanUps.splice(0)) await cleanUp();
});

async function watched(maxFolders = 100) {
  const root = await mkdtemp(path.join(tmpdir(), 'skillet-folder-watch-'));
  const seen = new Set<string>();
  const stop = watchFolderTree(root, maxFolders, (name) => seen.add(name));
  cleanUps.push(async () => {
    stop();
    await rm(root, { recursive: true, force: true });
  });
  return { root, seen };
}

/** Waits until `seen` holds every name, or fails after a few seconds (inotify is asynchronous). */
async function until(seen: Set<string>, names: string[]) {
  for (let wait = 0; wait < 100 && !names.every((name) => seen.has(name)); wait++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect([...seen]).toEqual(expect.arrayContaining(names));
}

describe('watching an output folder, one watch per folder', () => {
  it('names files written at any depth, in folders made after the watch began', async () => {
    const { root, seen } = await watched();
    await mkdir(path.join(root, 'a/b'), { recursive: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await writeFile(path.join(root, 'a/b/deep.txt'), 'x');
    await writeFile(path.join(root, 'top.txt'), 'x');
    await until(seen, ['a', 'a/b', 'a/b/deep.txt', 'top.txt']);
  });

  it('names what a folder held when it was moved in whole', async () => {
    const { root, seen } = await watched();
    const outside = await mkdtemp(path.join(tmpdir(), 'skillet-folder-watch-src-'));
    await mkdir(path.join(outside, 'inner'));
    await writeFile(path.join(outside, 'inner/held.txt'), 'x');
    await rename(outside, path.join(root, 'moved'));
    await until(seen, ['moved', 'moved/inner', 'moved/inner/held.txt']);
  });

  it('watches no more folders than it is allowed, and names nothing after it stops', async () => {
    const { root, seen } = await watched(2);
    await mkdir(path.join(root, 'one/two/three'), { recursive: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await writeFile(path.join(root, 'one/two/three/unseen.txt'), 'x');
    await writeFile(path.join(root, 'one/seen.txt'), 'x');
    await until(seen, ['one', 'one/seen.txt']);
    expect(seen.has('one/two/three/unseen.txt')).toBe(false);
  });
});

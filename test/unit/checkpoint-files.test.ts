import { mkdir, mkdtemp, readdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../../src/artifacts/blob-store.js';
import { FolderSnapshots, isCheckpointPath, restoreFiles } from '../../src/runs/checkpoint-files.js';

let root: string;
let folder: string;
let outside: string;
let blobs: LocalBlobStore;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'skillet-checkpoints-'));
  folder = path.join(root, 'run');
  outside = path.join(root, 'server');
  await mkdir(folder);
  await mkdir(outside);
  await writeFile(path.join(outside, 'secret.txt'), 'the server keeps this');
  blobs = new LocalBlobStore(path.join(root, 'blobs'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

/** A snapshot's changes, their blobs committed. */
async function commitAll(found: Awaited<ReturnType<FolderSnapshots['changes']>>) {
  if (found === 'tooMany' || found === 'tooLarge') throw new Error(`over the limits: ${found}`);
  for (const { blob } of found.changed) if (blob) await blobs.commit(blob);
  return found;
}

const LIMITS = { files: 100, bytes: 64 * 1024 };

describe('FolderSnapshots', () => {
  it('stages what changed since the last snapshot, and names what went', async () => {
    const snapshots = new FolderSnapshots(folder, blobs);
    await mkdir(path.join(folder, 'notes'));
    await writeFile(path.join(folder, 'a.txt'), 'one');
    await writeFile(path.join(folder, 'notes', 'b.txt'), 'two');
    const first = await commitAll(await snapshots.changes(LIMITS));
    expect(first.changed.map(({ file }) => file.path).sort()).toEqual(['a.txt', 'notes/b.txt']);
    expect((await commitAll(await snapshots.changes(LIMITS))).changed).toEqual([]);

    await writeFile(path.join(folder, 'a.txt'), 'one, then more');
    await rm(path.join(folder, 'notes', 'b.txt'));
    const second = await commitAll(await snapshots.changes(LIMITS));
    expect(second.changed.map(({ file }) => [file.path, file.size])).toEqual([['a.txt', 14]]);
    expect(second.removed).toEqual(['notes/b.txt']);
  });

  it('does not store a file again that was only touched', async () => {
    const snapshots = new FolderSnapshots(folder, blobs);
    await writeFile(path.join(folder, 'a.txt'), 'same');
    await commitAll(await snapshots.changes(LIMITS));
    const later = new Date(Date.now() + 5_000);
    await utimes(path.join(folder, 'a.txt'), later, later);
    expect((await commitAll(await snapshots.changes(LIMITS))).changed).toEqual([]);
  });

  it('stages nothing when one step changed more files than a checkpoint takes', async () => {
    for (let i = 0; i <= LIMITS.files; i++) await writeFile(path.join(folder, `f-${i}.txt`), String(i));
    expect(await new FolderSnapshots(folder, blobs).changes(LIMITS)).toBe('tooMany');
    expect(await readdir(path.join(root, 'blobs')).catch(() => [])).not.toContain('tmp');
  });

  it('stages nothing when one step changed more bytes than a checkpoint may take', async () => {
    await writeFile(path.join(folder, 'a.txt'), Buffer.alloc(LIMITS.bytes / 2));
    await writeFile(path.join(folder, 'b.txt'), Buffer.alloc(LIMITS.bytes / 2 + 1));
    expect(await new FolderSnapshots(folder, blobs).changes(LIMITS)).toBe('tooLarge');
    expect(await readdir(path.join(root, 'blobs')).catch(() => [])).not.toContain('tmp');
  });

  it('names the versions a snapshot replaced or saw removed', async () => {
    const snapshots = new FolderSnapshots(folder, blobs);
    await writeFile(path.join(folder, 'kept.txt'), 'first');
    await writeFile(path.join(folder, 'gone.txt'), 'going');
    const first = await commitAll(await snapshots.changes(LIMITS));
    const shaOf = (name: string) => first.changed.find(({ file }) => file.path === name)?.file.sha256;
    await writeFile(path.join(folder, 'kept.txt'), 'second version');
    await rm(path.join(folder, 'gone.txt'));
    const second = await commitAll(await snapshots.changes(LIMITS));
    expect(second.superseded.sort()).toEqual([shaOf('kept.txt'), shaOf('gone.txt')].sort());
  });

  it("never reads through a link: a file or a folder of the server's stays out", async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(folder, 'linked.txt'));
    await symlink(outside, path.join(folder, 'linked-folder'));
    await writeFile(path.join(folder, 'own.txt'), 'mine');
    const changes = await commitAll(await new FolderSnapshots(folder, blobs).changes(LIMITS));
    expect(changes.changed.map(({ file }) => file.path)).toEqual(['own.txt']);
  });

  it('puts a checkpoint back into an empty folder, and refuses a path that leaves it', async () => {
    await mkdir(path.join(folder, 'deep', 'er'), { recursive: true });
    await writeFile(path.join(folder, 'deep', 'er', 'c.txt'), 'three');
    const { changed } = await commitAll(await new FolderSnapshots(folder, blobs).changes(LIMITS));
    const files = changed.map(({ file }) => file);
    const fresh = path.join(root, 'fresh');
    await mkdir(fresh);
    await restoreFiles(fresh, files, blobs);
    expect(await readFile(path.join(fresh, 'deep', 'er', 'c.txt'), 'utf8')).toBe('three');
    // The restored folder reads as unchanged to a watcher that knows the checkpoint.
    const resumed = new FolderSnapshots(fresh, blobs, files);
    expect((await commitAll(await resumed.changes(LIMITS))).changed).toEqual([]);

    const escaping = [{ ...(files[0] as (typeof files)[0]), path: '../escaped.txt' }];
    await expect(restoreFiles(fresh, escaping, blobs)).rejects.toThrow('cannot be restored');
    for (const bad of ['', '/etc/passwd', 'a/../../b', 'a//b', './a']) expect(isCheckpointPath(bad)).toBe(false);
  });
});

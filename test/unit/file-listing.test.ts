import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { listing } from '../../src/sandbox/confined-files.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'skillet-listing-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe("the list_files tool's listing of a folder", () => {
  it('lists files in nested folders, sorted, with their sizes, and names links without following them', async () => {
    await mkdir(path.join(root, 'b', 'c'), { recursive: true });
    await writeFile(path.join(root, 'b', 'c', 'deep.txt'), 'four');
    await writeFile(path.join(root, 'a.txt'), 'hello');
    await mkdir(path.join(root, 'elsewhere'));
    await writeFile(path.join(root, 'elsewhere', 'secret.txt'), 'not through the link');
    await symlink(path.join(root, 'elsewhere'), path.join(root, 'b', 'link'));
    await symlink('/etc', path.join(root, 'etc-link'));
    expect(listing(root, 'output')).toEqual([
      'output/a.txt (5 bytes)',
      'output/b/c/deep.txt (4 bytes)',
      'output/b/link (symbolic link)',
      'output/elsewhere/secret.txt (20 bytes)',
      'output/etc-link (symbolic link)',
    ]);
  });

  it('says (none) for an empty folder and for one that does not exist', async () => {
    expect(listing(root, 'output')).toEqual(['(none)']);
    expect(listing(path.join(root, 'missing'), 'output')).toEqual(['(none)']);
  });

  it('shows the first 500 files and counts the rest', async () => {
    await Promise.all(Array.from({ length: 520 }, (_, i) => writeFile(path.join(root, `f${String(i).padStart(3, '0')}`), '')));
    const lines = listing(root, 'output');
    expect(lines).toHaveLength(501);
    expect(lines[0]).toBe('output/f000 (0 bytes)');
    expect(lines.at(-1)).toBe('… and 20 more files');
  });

  it('is not led outside by a folder swapped for a link while it walks', async () => {
    await mkdir(path.join(root, 'sub'));
    await writeFile(path.join(root, 'sub', 'inside.txt'), 'x');
    // What a hostile run may do in its output folder while the model lists it.
    // A group of its own, so the kill below takes the command under way too: one left running
    // could make an entry while the folder is being removed (ENOTEMPTY, seen on CI).
    const swapper = spawn('sh', ['-c', 'while :; do mv sub sub.d && ln -s /etc sub && rm sub && mv sub.d sub; done'], {
      cwd: root,
      stdio: 'ignore',
      detached: true,
    });
    const exited = once(swapper, 'exit');
    try {
      const seen = new Set<string>();
      for (let round = 0; round < 400; round++) for (const line of listing(root, 'output')) seen.add(line);
      // A folder read while an entry is renamed may miss it, so a round may list nothing ("(none)").
      const allowed = /^(\(none\)|output\/(sub|sub\.d)(\/inside\.txt \(1 bytes\)| \(symbolic link\)))$/;
      expect([...seen].filter((line) => !allowed.test(line))).toEqual([]);
    } finally {
      process.kill(-(swapper.pid as number), 'SIGKILL');
      await exited;
    }
  });

  it('does not enter folders more than 64 deep, and says so', async () => {
    const deep = path.join(root, ...Array.from({ length: 70 }, () => 'd'));
    await mkdir(deep, { recursive: true });
    await writeFile(path.join(root, 'd', 'top.txt'), '');
    await writeFile(path.join(deep, 'bottom.txt'), '');
    expect(listing(root, 'output')).toEqual([
      'output/d/top.txt (0 bytes)',
      '… and what is in folders more than 64 deep, not listed',
    ]);
  });

  it('stops a walk of a folder a skill filled after 10,000 entries, and says so', async () => {
    for (let folder = 0; folder < 11; folder++) {
      const dir = path.join(root, `d${folder}`);
      await mkdir(dir);
      await Promise.all(Array.from({ length: 1000 }, (_, i) => writeFile(path.join(dir, `f${i}`), '')));
    }
    const lines = listing(root, 'output');
    expect(lines).toHaveLength(501);
    expect(lines.at(-1)).toBe('… and more files: the listing stopped after 10000 entries');
  });
});

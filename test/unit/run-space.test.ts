import { describe, expect, it } from 'vitest';
import { ownerOfGroup, runGroupName } from '../../src/sandbox/run-cgroup-leftovers.js';
import { outputSpace, PAGE_BYTES, runMountsUnder, tmpfsOptions, unescapeMountPath } from '../../src/sandbox/run-space.js';

describe('the bound of a run folder', () => {
  it('asks tmpfs for whole pages and one inode more for the folder itself', () => {
    expect(tmpfsOptions({ bytes: 10_000, files: 16 }, { uid: 0, gid: 0 })).toBe(
      'size=12288,nr_inodes=17,mode=0700,uid=0,gid=0,nosuid,nodev',
    );
  });

  it('leaves an output folder room for every allowed file in whole pages, and one entry and page over', () => {
    expect(outputSpace({ outputBytes: 8 * 1024 * 1024, outputFiles: 16 })).toEqual({
      bytes: 8 * 1024 * 1024 + 17 * PAGE_BYTES,
      files: 17,
    });
    // A limit that is not a whole number of pages is rounded up, never down.
    expect(outputSpace({ outputBytes: 1025, outputFiles: 1 }).bytes).toBe(3 * PAGE_BYTES);
  });
});

describe('finding the mounts a killed server left', () => {
  const mountinfo = [
    '22 1 254:0 / / rw,relatime - ext4 /dev/vda rw',
    '90 22 0:50 / /srv/data/scratch/a rw,nosuid,nodev,relatime - tmpfs skillet-run rw,size=12k,nr_inodes=17,mode=700',
    '91 90 0:51 / /srv/data/scratch/a/inner rw,nosuid,nodev,relatime - tmpfs skillet-run rw,size=8k',
    '92 22 0:52 / /srv/data/scratch/with\\040space rw - tmpfs skillet-run rw,size=8k',
    // The host's own tmpfs, and ours under another server's folder: neither is this server's.
    '93 22 0:53 / /srv/data/shm rw - tmpfs tmpfs rw',
    '94 22 0:54 / /srv/data-other/scratch/b rw - tmpfs skillet-run rw,size=8k',
    '95 22 0:55 / /srv/data rw - tmpfs skillet-run rw,size=8k',
    'not a mountinfo line',
    '',
  ].join('\n');

  it('lists the run mounts under the data folder only, deepest first so each can be unmounted', () => {
    expect(runMountsUnder(mountinfo, '/srv/data')).toEqual([
      '/srv/data/scratch/with space',
      '/srv/data/scratch/a/inner',
      '/srv/data/scratch/a',
    ]);
    expect(runMountsUnder(mountinfo, '/elsewhere')).toEqual([]);
  });

  it('reads the octal escapes mountinfo writes for space, tab, newline and backslash', () => {
    expect(unescapeMountPath('/a\\040b\\011c\\012d\\134e')).toBe('/a b\tc\nd\\e');
    expect(unescapeMountPath('/plain/path')).toBe('/plain/path');
  });
});

describe('telling a leftover run group', () => {
  it('names each group with the pid of the server that made it', () => {
    expect(ownerOfGroup(runGroupName(4242))).toBe(4242);
    expect(ownerOfGroup(runGroupName())).toBe(process.pid);
  });

  it('claims no folder that is not a run group of this format', () => {
    for (const name of [
      'run-',
      'run-12',
      'run-12-not-a-uuid',
      'skillet-server',
      'run-4ac5bd1e-2b6a-4a9e-9d4e-0f6c1b2a3d4e',
      '',
    ]) {
      expect(ownerOfGroup(name)).toBeUndefined();
    }
  });
});

import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RelayedCommandFailed, shellQuote, shellRelay } from '../../src/sandbox/shell-relay.js';

/** Whether a process whose command line holds `marker` is still running. */
async function runningWith(marker: string): Promise<boolean> {
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    if (command.includes(marker)) return true;
  }
  return false;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-relay-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the shell relay that runs mount and umount', () => {
  it('runs a command with its arguments taken literally, never expanded', async () => {
    const target = path.join(dir, 'written');
    const hostile = ["'; touch pwned; '", '$(touch pwned)', '`touch pwned`', '"; touch pwned; "', 'a\nb', '*', '~'];
    await shellRelay.exec('sh', ['-c', 'printf "%s\\0" "$@" > "$0"', target, ...hostile], 5000);
    expect((await readFile(target, 'utf8')).split('\0').slice(0, -1)).toEqual(hostile);
    expect(existsSync(path.join(process.cwd(), 'pwned'))).toBe(false);
    expect(existsSync(path.join(dir, 'pwned'))).toBe(false);
  });

  it('fails a command that exits non-zero, with what it printed', async () => {
    const failed = shellRelay.exec('sh', ['-c', 'echo "no such mount point" >&2; exit 32'], 5000);
    await expect(failed).rejects.toBeInstanceOf(RelayedCommandFailed);
    await expect(failed).rejects.toMatchObject({ stderr: 'no such mount point' });
  });

  it('keeps commands sent together in order, each with its own outcome', async () => {
    const order = path.join(dir, 'order');
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        shellRelay.exec('sh', ['-c', `echo ${i} >> "$0"; exit $(( ${i} % 3 == 0 ))`, order], 5000),
      ),
    );
    expect(outcomes.map((outcome) => outcome.status)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i % 3 === 0 ? 'rejected' : 'fulfilled')),
    );
    expect((await readFile(order, 'utf8')).trim().split('\n')).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
  });

  it('gives up on a command past its time, kills it, and the next command gets a fresh shell', async () => {
    const marker = `skillet-relay-test-${process.pid}-${Date.now()}`;
    await expect(shellRelay.exec('sh', ['-c', 'sleep 30', marker], 200)).rejects.toThrow(/took over 200 ms/);
    await expect(shellRelay.exec('true', [], 5000)).resolves.toBeUndefined();
    await expect.poll(() => runningWith(marker), { timeout: 2000 }).toBe(false);
  });

  it('refuses an argument with a NUL byte rather than cut it short', () => {
    expect(() => shellQuote('a\0b')).toThrow(/NUL/);
  });
});

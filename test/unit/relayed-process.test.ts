import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, readlink, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type RelayedProcess, startRelayed } from '../../src/sandbox/relayed-process.js';
import { shellRelay } from '../../src/sandbox/shell-relay.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-relayed-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Everything `process` prints until its output closes. */
async function printed(process: RelayedProcess): Promise<string> {
  const chunks: Buffer[] = [];
  process.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  await process.exited;
  return Buffer.concat(chunks).toString('utf8');
}

/** Where a process's standard input and output lead, as the kernel names them. */
function streamsOf(pid: number): Promise<string[]> {
  return Promise.all([0, 1].map((fd) => readlink(`/proc/${pid}/fd/${fd}`)));
}

describe('a process started through the launch relay', () => {
  it('talks over its standard streams and has exactly the environment it was given', async () => {
    const started = await startRelayed(
      { file: '/bin/sh', args: ['-c', 'read line; echo "got $line"; echo "FOO=$FOO"; env | wc -l'] },
      { FOO: "it's $(not) `run`", PATH: '/usr/bin:/bin' },
    );
    const output = printed(started);
    started.stdin.write('hello\n');
    expect((await output).split('\n')).toEqual(['got hello', "FOO=it's $(not) `run`", '3', '']);
    expect(started.ended).toBe(true);
  });

  it('takes its arguments literally', async () => {
    const target = path.join(dir, 'arguments');
    const hostile = ["'; touch pwned; '", '$(touch pwned)', '`touch pwned`', 'a\nb', '*', '~'];
    const started = await startRelayed({ file: '/bin/sh', args: ['-c', 'printf "%s\\0" "$@" > "$0"', target, ...hostile] }, {});
    await started.exited;
    expect((await readFile(target, 'utf8')).split('\0').slice(0, -1)).toEqual(hostile);
    expect(existsSync(path.join(dir, 'pwned'))).toBe(false);
  });

  it('is killed on demand, and its pipes are gone from the disk once it runs', async () => {
    const started = await startRelayed({ file: '/bin/sh', args: ['-c', 'echo up; exec sleep 60'] }, {});
    await new Promise((resolve) => started.stdout.once('data', resolve));
    // Named pipes in a folder of the launch's own, removed from the disk: only the open descriptors are left.
    await expect
      .poll(() => streamsOf(started.pid))
      .toEqual([expect.stringMatching(/skillet-pipes-.*\/in \(deleted\)$/), expect.stringMatching(/\/out \(deleted\)$/)]);
    started.kill();
    await started.exited;
    expect(started.ended).toBe(true);
    started.kill(); // a second kill of an ended process does nothing
  });

  it('ends, leaving no pipes behind, when killed before it has opened them', async () => {
    // Its pipes go in a folder of this test's own: other test files start computers alongside.
    const pipes = await mkdtemp(path.join(dir, 'tmp-'));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = pipes;
    onTestFinished(() => {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    });
    for (let attempt = 0; attempt < 20; attempt++) {
      const started = await startRelayed({ file: '/bin/sh', args: ['-c', 'echo up; exec sleep 60'] }, {});
      started.kill();
      await started.exited;
      expect(started.ended).toBe(true);
    }
    expect(readdirSync(pipes)).toEqual([]);
  });

  it('ends when what it runs cannot start', async () => {
    const started = await startRelayed({ file: path.join(dir, 'no-such-program'), args: [] }, {});
    await expect(started.exited).resolves.toBeUndefined();
  });

  it('runs in a session of its own: the relay that runs mounts giving up on a command does not touch it', async () => {
    const started = await startRelayed({ file: '/bin/sh', args: ['-c', 'echo up; exec sleep 60'] }, {});
    await new Promise((resolve) => started.stdout.once('data', resolve));
    const stat = (await readFile(`/proc/${started.pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
    // Fields after the name: state, ppid, pgrp, session.
    expect(stat[3]).toBe(String(started.pid));
    await expect(shellRelay.exec('sh', ['-c', 'sleep 30'], 100)).rejects.toThrow(/took over/);
    expect(started.ended).toBe(false);
    started.kill();
    await started.exited;
  });
});

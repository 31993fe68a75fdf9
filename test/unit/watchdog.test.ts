import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { LimitBreach } from '../../src/ports/sandbox.js';
import { folderUsage, inspectOutput, killTree, type WatchedLimits, watchRun } from '../../src/sandbox/watchdog.js';

const MIB = 1024 * 1024;

const folders: string[] = [];
const children: ChildProcess[] = [];
/** Processes the children started, by pid, killed after each test whatever it did. */
const grandchildren: number[] = [];
const watches: (() => void)[] = [];

afterEach(async () => {
  for (const stop of watches.splice(0)) stop();
  for (const pid of [...grandchildren.splice(0), ...children.splice(0).map((child) => child.pid)]) {
    try {
      if (pid) process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-watchdog-'));
  folders.push(dir);
  return dir;
}

/** Limits nothing below goes near, so a test lowers only the one it is about. */
function limits(outputDir: string, lowered: Partial<WatchedLimits> = {}): WatchedLimits {
  return {
    memoryBytes: 1024 * MIB,
    cpuSeconds: 60,
    processes: 16,
    outputDir,
    outputBytes: 100 * MIB,
    outputFiles: 1000,
    ...lowered,
  };
}

/** `node -e script`, which prints `ready` (and what it wants the test to know) once set up. */
async function nodeChild(script: string): Promise<{ child: ChildProcess; said: string }> {
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  let said = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('ready')) resolve();
    });
    // 'close', not 'exit': it comes after the last of the child's output has been read.
    child.once('close', (code, signal) => reject(new Error(`the child ended before it was ready (${code ?? signal})`)));
  });
  return { child, said };
}

/** Resolves with the signal that ended the child, at once if it already has ended. */
function ended(child: ChildProcess): Promise<NodeJS.Signals | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.signalCode);
  return new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
}

/** The first breach watchRun reports for `pid`; rejected when none comes within `ms` (real time: the child runs on it). */
function firstBreach(pid: number, watched: WatchedLimits, ms = 10_000): Promise<LimitBreach> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no breach reported within ${ms} ms`)), ms);
    watches.push(
      watchRun(pid, watched, (breach) => {
        clearTimeout(timer);
        resolve(breach);
      }),
    );
  });
}

/** A child that starts `count` long sleeps of its own and says their pids. */
const PARENT_OF = (count: number) => `
  const { spawn } = require('node:child_process');
  const pids = Array.from({ length: ${count} }, () => spawn('sleep', ['30'], { stdio: 'ignore' }).pid);
  process.stdout.write(JSON.stringify(pids) + ' ready');
  setTimeout(() => {}, 30_000);
`;

/** Alive: present in /proc and not a zombie waiting for its parent to collect it. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function pidsSaid(said: string): number[] {
  const pids = JSON.parse(said.replace('ready', '')) as number[];
  grandchildren.push(...pids);
  return pids;
}

describe('folderUsage', () => {
  it('adds up regular files and counts every entry, without following links out of the folder', async () => {
    const dir = await folder();
    const outside = await folder();
    await writeFile(path.join(outside, 'big.bin'), Buffer.alloc(MIB));
    await writeFile(path.join(dir, 'a.txt'), '0123456789');
    await mkdir(path.join(dir, 'sub'));
    await writeFile(path.join(dir, 'sub', 'b.bin'), Buffer.alloc(20));
    await mkdir(path.join(dir, 'empty'));
    await symlink(path.join(outside, 'big.bin'), path.join(dir, 'to-file'));
    await symlink(outside, path.join(dir, 'to-folder'));

    // a.txt, sub, sub/b.bin, empty and the two links: the links count, what they point at does not.
    expect(await folderUsage(dir)).toEqual({ bytes: 30, files: 6 });
  });

  it('reads a folder that is not there as empty', async () => {
    expect(await folderUsage(path.join(await folder(), 'gone'))).toEqual({ bytes: 0, files: 0 });
  });
});

describe('inspectOutput', () => {
  async function outputOf30BytesIn3Entries(): Promise<string> {
    const dir = await folder();
    await writeFile(path.join(dir, 'a.txt'), Buffer.alloc(10));
    await mkdir(path.join(dir, 'sub'));
    await writeFile(path.join(dir, 'sub', 'b.txt'), Buffer.alloc(20));
    return dir;
  }

  it('finds nothing at its limits exactly', async () => {
    const dir = await outputOf30BytesIn3Entries();
    expect(await inspectOutput(limits(dir, { outputBytes: 30, outputFiles: 3 }))).toBeUndefined();
  });

  it('names the bytes one past the byte limit', async () => {
    const dir = await outputOf30BytesIn3Entries();
    expect(await inspectOutput(limits(dir, { outputBytes: 29 }))).toEqual({ limit: 'output-bytes', bytes: 30 });
  });

  it('names the count one past the file limit, folders included', async () => {
    const dir = await outputOf30BytesIn3Entries();
    expect(await inspectOutput(limits(dir, { outputFiles: 2 }))).toEqual({ limit: 'output-files', count: 3 });
  });

  it('names the bytes first when both are over', async () => {
    const dir = await outputOf30BytesIn3Entries();
    expect(await inspectOutput(limits(dir, { outputBytes: 29, outputFiles: 2 }))).toEqual({ limit: 'output-bytes', bytes: 30 });
  });
});

describe('watchRun', () => {
  it('reports a process over its resident memory limit', async () => {
    // 128 MiB written, so resident, against 100 MiB; a bare Node is about 40.
    const { child } = await nodeChild(
      `const kept = Buffer.alloc(128 * 1024 * 1024, 1); process.stdout.write('ready'); setTimeout(() => kept.length, 30_000);`,
    );
    const breach = await firstBreach(child.pid ?? 0, limits(await folder(), { memoryBytes: 100 * MIB }));
    expect(breach).toEqual({ limit: 'memory', bytes: expect.any(Number) });
    expect(breach.limit === 'memory' && breach.bytes).toBeGreaterThan(128 * MIB);
  });

  it('reports a process tree over its process limit, its children counted', async () => {
    const { child, said } = await nodeChild(PARENT_OF(3));
    pidsSaid(said);
    const breach = await firstBreach(child.pid ?? 0, limits(await folder(), { processes: 2 }));
    expect(breach).toEqual({ limit: 'processes', count: expect.any(Number) });
    expect(breach.limit === 'processes' && breach.count).toBeGreaterThan(2);
  });

  it('reports a process over its CPU time', async () => {
    const { child } = await nodeChild(
      `process.stdout.write('ready'); const end = Date.now() + 20_000; while (Date.now() < end);`,
    );
    const breach = await firstBreach(child.pid ?? 0, limits(await folder(), { cpuSeconds: 0.3 }));
    expect(breach).toEqual({ limit: 'cpu', seconds: expect.any(Number) });
    expect(breach.limit === 'cpu' && breach.seconds).toBeGreaterThan(0.3);
  });

  it('reports output written past the byte limit as it is written', async () => {
    const dir = await folder();
    const { child } = await nodeChild(`
      process.stdout.write('ready');
      const { writeFileSync } = require('node:fs');
      let n = 0;
      setInterval(() => writeFileSync(${JSON.stringify(dir)} + '/part-' + n++, Buffer.alloc(64 * 1024)), 20);
    `);
    const breach = await firstBreach(child.pid ?? 0, limits(dir, { outputBytes: 150 * 1024 }));
    expect(breach).toEqual({ limit: 'output-bytes', bytes: expect.any(Number) });
    expect(breach.limit === 'output-bytes' && breach.bytes).toBeGreaterThan(150 * 1024);
  });

  it('reports nothing for a process within every limit, through to its exit', async () => {
    const dir = await folder();
    const breaches: LimitBreach[] = [];
    const { child } = await nodeChild(`
      process.stdout.write('ready');
      require('node:fs').writeFileSync(${JSON.stringify(dir)} + '/small.txt', 'small');
      setTimeout(() => {}, 500);
    `);
    const exited = ended(child);
    watches.push(
      watchRun(child.pid ?? 0, limits(dir, { memoryBytes: 100 * MIB, processes: 2, outputBytes: 1024 }), (breach) =>
        breaches.push(breach),
      ),
    );
    await exited;
    expect(breaches).toEqual([]);
  });
});

describe('killTree', () => {
  it('kills the child and the processes it started, which killing the child alone leaves running', async () => {
    // The control: SIGKILL to the child alone orphans its children, alive.
    const control = await nodeChild(PARENT_OF(2));
    const orphans = pidsSaid(control.said);
    const controlExited = ended(control.child);
    control.child.kill('SIGKILL');
    await controlExited;
    expect(orphans.filter(alive)).toEqual(orphans);

    const { child, said } = await nodeChild(PARENT_OF(2));
    const tree = pidsSaid(said);
    const exited = ended(child);
    killTree(child);
    expect(await exited).toBe('SIGKILL');
    // Killed by signal at once; a zombie counts as dead until whoever adopted it collects it.
    await expect.poll(() => tree.filter(alive), { timeout: 5000 }).toEqual([]);
  });

  it('does nothing more than kill for a child that already exited', async () => {
    const { child } = await nodeChild(`process.stdout.write('ready')`);
    await ended(child);
    expect(() => killTree(child)).not.toThrow();
  });
});

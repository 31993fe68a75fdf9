import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { Config } from '../../src/config.js';
import { loadConfig } from '../../src/config-load.js';
import type { Skill } from '../../src/ports/skills.js';
import { ComputerPool } from '../../src/runtime/computer/computer-pool.js';
import type { WarmComputer } from '../../src/runtime/runtime.js';
import type { ComputerAnswer } from '../../src/sandbox/computer/computer-machine.js';
import { linkTree, TreeTooLarge } from '../../src/sandbox/linked-tree.js';
import { runMountsUnder } from '../../src/sandbox/run-space.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import { WARM_MAX_AGE_MS } from '../../src/sandbox/warm-pool.js';
import { removeDataFolder } from '../helpers/sandbox.js';
import { TEST_ENV } from '../helpers/server.js';

const sandbox = await detectSandbox('auto');
const CAN_POOL = sandbox.kind === 'bwrap' && sandbox.cgroups !== undefined;
const MIB = 1024 * 1024;
/** The computer memory limit these pools are set up with, and free memory that holds them whole. */
const RUN_MB = 64;
const PLENTY = 64 * 1024 * MIB;

let dataDir: string;
let config: Config;
let clock: ManualClock;
let freeMemory: number;
let skill: Skill;
const pools: ComputerPool[] = [];
const taken: WarmComputer[] = [];

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'computer-pool-'));
  config = await loadConfig({
    ...TEST_ENV,
    DATA_DIR: dataDir,
    COMPUTER_MEMORY_MB: String(RUN_MB),
    SKILL_WORKSPACE_LIMIT_BYTES: String(16 * MIB),
    COMPUTER_POOL_SIZE: '2',
  });
  clock = new ManualClock();
  freeMemory = PLENTY;
  const dir = path.join(dataDir, 'skills', 'pooled');
  await mkdir(path.join(dir, 'scripts'), { recursive: true });
  await writeFile(path.join(dir, 'SKILL.md'), '---\nname: pooled\ndescription: d\n---\nDo it.\n');
  await writeFile(path.join(dir, 'scripts', 'go.py'), 'print("went")\n');
  skill = { slug: 'pooled', name: 'pooled', description: 'd', body: 'Do it.', runtime: 'agent', dir, builtIn: false } as Skill;
});

afterEach(async () => {
  await Promise.all(
    taken.splice(0).map(async (warm) => {
      await warm.release();
      await warm.output.release();
    }),
  );
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
  await removeDataFolder(dataDir);
});

function newPool(poolConfig: Config = config): ComputerPool {
  const log = { info: () => undefined, warn: () => undefined };
  const pool = new ComputerPool({ sandbox, config: poolConfig, log, clock, freeMemory: () => freeMemory });
  pools.push(pool);
  return pool;
}

async function take(pool: ComputerPool, runId = 'run-1'): Promise<WarmComputer | undefined> {
  const warm = await pool.takeFor(skill, undefined, runId);
  if (warm) taken.push(warm);
  return warm;
}

const bash = (warm: WarmComputer, command: string): Promise<ComputerAnswer> =>
  warm.computer.session.call({ op: 'bash', command, timeout_ms: 10_000 }, 10_000);

/** Process ids of the sandboxes whose command line names `dir`: the pool's, of this test's data folder. */
function sandboxesUnder(dir: string): number[] {
  const out = execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((line) => line.includes('bwrap') && line.includes(dir))
    .map((line) => Number(line.trim().split(' ')[0]));
}

describe.runIf(CAN_POOL)('the warm computer pool', () => {
  it('hands out a started computer holding the run’s skill, and never the same one twice', async () => {
    const pool = newPool();
    await pool.tend();
    expect(pool.size).toBe(2);
    const first = await take(pool);
    const second = await take(pool, 'run-2');
    expect(first && second).toBeTruthy();
    if (!first || !second) return;
    expect(first.computer.session.ready).toBe(true);
    expect(first.output.dir).not.toBe(second.output.dir);
    expect(first.computer.session).not.toBe(second.computer.session);
    expect(pool.size).toBe(0);
    expect(await take(pool, 'run-3')).toBeUndefined();
    const look = await bash(
      first,
      'ls /mnt/skills; ls /mnt/skills/pooled; python3 /mnt/skills/pooled/scripts/go.py; echo hi > /mnt/session/outputs/a.txt',
    );
    expect(look.stdout).toBe('pooled\nSKILL.md\nscripts\nwent\n');
    expect(await readFile(path.join(first.output.dir, 'a.txt'), 'utf8')).toBe('hi\n');
    // What one run left in its computer is nowhere in the next one's.
    await bash(first, 'echo secret > /workspace/left; echo secret > /tmp/left; echo secret > /dev/shm/left');
    const other = await bash(second, 'ls -A /workspace /tmp /dev/shm /mnt/session/outputs /mnt/user-data/uploads | tr "\\n" " "');
    expect(other.stdout).not.toContain('left');
    expect(other.stdout).not.toContain('a.txt');
  });

  it('gives each of many racing runs its own computer or none', async () => {
    for (let round = 0; round < 5; round++) {
      const pool = newPool();
      await pool.tend();
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => take(pool, `race-${i}`)));
      const given = results.filter((warm) => warm !== undefined);
      expect(given).toHaveLength(2);
      expect(new Set(given.map((warm) => warm.output.dir)).size).toBe(2);
      await pool.close();
    }
  });

  it('keeps the skill and the run’s files read only inside', async () => {
    const pool = newPool();
    await pool.tend();
    const uploads = path.join(dataDir, 'run-uploads');
    await mkdir(uploads);
    await writeFile(path.join(uploads, 'in.csv'), 'a,b\n');
    const warm = await pool.takeFor(skill, { dir: uploads, files: [{ path: 'in.csv', size: 4, mimeType: 'text/csv' }] }, 'r');
    expect(warm).toBeDefined();
    if (!warm) return;
    taken.push(warm);
    const tried = await bash(
      warm,
      'cat /mnt/user-data/uploads/in.csv; echo x > /mnt/user-data/uploads/in.csv; echo x > /mnt/skills/pooled/SKILL.md; rm /mnt/skills/pooled/scripts/go.py; mkdir /mnt/skills/other',
    );
    expect(tried.stdout).toBe('a,b\n');
    expect(String(tried.stderr).match(/Read-only file system/g)).toHaveLength(4);
    expect(await readFile(path.join(skill.dir, 'SKILL.md'), 'utf8')).toContain('name: pooled');
  });

  it('replaces a computer that died while it waited, and one grown stale', async () => {
    const pool = newPool();
    await pool.tend();
    const before = sandboxesUnder(dataDir);
    expect(before).toHaveLength(2);
    const killed = before[0] ?? 0;
    process.kill(killed, 'SIGKILL');
    // Tending notices the dead one (once its exit is seen) and starts another in its place.
    await expect
      .poll(async () => {
        await pool.tend();
        const now = sandboxesUnder(dataDir);
        return now.length === 2 && !now.includes(killed);
      })
      .toBe(true);
    const warm = await take(pool);
    expect(warm?.computer.session.ready).toBe(true);
    expect((warm && (await bash(warm, 'echo alive')))?.stdout).toBe('alive\n');
    await pool.tend();
    expect(pool.size).toBe(2);
    const takenOnes = warm ? sandboxesUnder(warm.output.dir) : [];
    const waiting = sandboxesUnder(dataDir).filter((pid) => !takenOnes.includes(pid));
    expect(waiting).toHaveLength(2);
    clock.advance(WARM_MAX_AGE_MS);
    // A stale computer is not handed out: taking finds none fresh.
    expect(await take(pool, 'late')).toBeUndefined();
    await pool.tend();
    expect(pool.size).toBe(2);
    const renewed = sandboxesUnder(dataDir);
    expect(renewed.filter((pid) => waiting.includes(pid))).toEqual([]);
    expect(renewed.filter((pid) => !takenOnes.includes(pid))).toHaveLength(2);
  });

  it('holds fewer computers as free memory runs short, none when it cannot spare a run', async () => {
    const pool = newPool();
    await pool.tend();
    expect(pool.size).toBe(2);
    freeMemory = 2.5 * RUN_MB * MIB;
    await pool.tend();
    expect(pool.size).toBe(1);
    freeMemory = 1.5 * RUN_MB * MIB;
    await pool.tend();
    expect(pool.size).toBe(0);
    expect(await take(pool)).toBeUndefined();
    freeMemory = PLENTY;
    await pool.tend();
    expect(pool.size).toBe(2);
  });

  it('holds computers of the default 4 GiB where 6 GiB are free: a limit caps a run, it reserves nothing', async () => {
    const large = await loadConfig({ ...TEST_ENV, DATA_DIR: dataDir, COMPUTER_POOL_SIZE: '2' });
    expect(large.executions.computerMemoryMb).toBe(4096);
    const pool = newPool(large);
    freeMemory = 6 * 1024 * MIB;
    await pool.tend();
    expect(pool.size).toBe(2);
    freeMemory = 4096 * MIB + 100 * MIB;
    await pool.tend();
    expect(pool.size).toBe(1);
    freeMemory = 4096 * MIB;
    await pool.tend();
    expect(pool.size).toBe(0);
  });

  it('starts none for a skill that needs no computer, and none for a skill too large to place', async () => {
    const pool = newPool();
    await pool.tend();
    expect(await pool.takeFor({ ...skill, runtime: 'script' }, undefined, 'r')).toBeUndefined();
    expect(await pool.takeFor({ ...skill, allowedTools: ['read_file'] }, undefined, 'r')).toBeUndefined();
    expect(pool.size).toBe(2);
    for (let i = 0; i < 600; i++) await writeFile(path.join(skill.dir, `f${i}.txt`), 'x');
    expect(await take(pool)).toBeUndefined();
    // The computer it tried is gone, not handed to the next run with half a skill in it.
    expect(pool.size).toBe(1);
  });

  it('leaves nothing behind once closed, or once a run let go of its computer: no sandbox, no mount, no folder', async () => {
    const pool = newPool();
    await pool.tend();
    const warm = await pool.takeFor(skill, undefined, 'run-1');
    if (!warm) throw new Error('the pool held no computer');
    // A process the run left going, detached from the shell, that would write on into the output.
    const marker = `left-behind-${randomUUID()}`;
    await bash(
      warm,
      `(setsid sh -c 'while :; do date +%s%N > /mnt/session/outputs/${marker}; sleep 0.01; done' &) ; echo started`,
    );
    await expect.poll(() => readFile(path.join(warm.output.dir, marker), 'utf8').catch(() => '')).not.toBe('');
    await warm.release();
    // The run's end waits only for everything in the computer to stop (nothing writes to the
    // output after it); the pool clears its group and folders after.
    const written = await readFile(path.join(warm.output.dir, marker), 'utf8');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await readFile(path.join(warm.output.dir, marker), 'utf8')).toBe(written);
    expect(sandboxesUnder(warm.output.dir)).toEqual([]);
    expect(execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })).not.toContain(marker);
    await warm.output.release();
    await pool.cleared();
    const mountinfo = await readFile('/proc/self/mountinfo', 'utf8');
    expect(runMountsUnder(mountinfo, dataDir).filter((mount) => mount.startsWith(warm.output.dir))).toEqual([]);
    const itsOwn = path.basename(warm.output.dir);
    expect((await readdir(path.join(dataDir, 'scratch'))).filter((name) => name.startsWith(itsOwn))).toEqual([]);
    await pool.close();
    expect(sandboxesUnder(dataDir)).toEqual([]);
    expect(runMountsUnder(await readFile('/proc/self/mountinfo', 'utf8'), dataDir)).toEqual([]);
    expect(await readdir(path.join(dataDir, 'scratch'))).toEqual([]);
  });

  it('lets go at once of a computer its run never called, and still clears all of it away', async () => {
    const pool = newPool();
    await pool.tend();
    const warm = await pool.takeFor(skill, undefined, 'run-1');
    if (!warm) throw new Error('the pool held no computer');
    await warm.release();
    expect(warm.computer.session.ready).toBe(false);
    await warm.output.release();
    await pool.cleared();
    expect(sandboxesUnder(warm.output.dir)).toEqual([]);
    expect(
      runMountsUnder(await readFile('/proc/self/mountinfo', 'utf8'), dataDir).filter((m) => m.startsWith(warm.output.dir)),
    ).toEqual([]);
    const itsOwn = path.basename(warm.output.dir);
    expect((await readdir(path.join(dataDir, 'scratch'))).filter((name) => name.startsWith(itsOwn))).toEqual([]);
  });
});

describe('placing a skill’s folder', () => {
  it('recreates links as links, never following them out of the folder', async () => {
    const from = await mkdtemp(path.join(tmpdir(), 'tree-from-'));
    const to = await mkdtemp(path.join(tmpdir(), 'tree-to-'));
    await mkdir(path.join(from, 'sub'));
    await writeFile(path.join(from, 'sub', 'a.txt'), 'a');
    await symlink('/etc/passwd', path.join(from, 'escape'));
    expect(await linkTree(from, to, 10)).toBe(3);
    expect(await readlink(path.join(to, 'escape'))).toBe('/etc/passwd');
    expect(await readFile(path.join(to, 'sub', 'a.txt'), 'utf8')).toBe('a');
    await expect(linkTree(from, await mkdtemp(path.join(tmpdir(), 'tree-to-')), 2)).rejects.toBeInstanceOf(TreeTooLarge);
  });
});

import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CgroupHost, RunGroup } from '../../src/ports/sandbox.js';
import { cgroupMounts, detectCgroups, groupFolder, ownGroups } from '../../src/sandbox/cgroup-detection.js';
import { SANDBOX_PYTHON } from '../../src/sandbox/computer/computer-software.js';
import { launchCommand } from '../../src/sandbox/launch-command.js';
import { counterIn } from '../../src/sandbox/run-cgroup.js';

const MIB = 1024 * 1024;

describe('reading the cgroup layout of a machine', () => {
  it('finds the v1 controllers and the v2 mount of a hybrid host, and this process groups', () => {
    const mountinfo = [
      '30 25 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
      '31 25 0:27 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
      '32 25 0:28 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct',
      '33 25 0:29 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
      '34 25 0:30 / /proc rw - proc proc rw',
    ].join('\n');
    const mounts = cgroupMounts(mountinfo);
    expect(Object.fromEntries(mounts.v1)).toEqual({
      memory: { root: '/', mountPoint: '/sys/fs/cgroup/memory' },
      pids: { root: '/', mountPoint: '/sys/fs/cgroup/pids' },
      cpuacct: { root: '/', mountPoint: '/sys/fs/cgroup/cpu,cpuacct' },
    });
    expect(mounts.v2).toEqual({ root: '/', mountPoint: '/sys/fs/cgroup/unified' });
    const own = ownGroups('4:memory:/services/skillet\n3:cpu,cpuacct:/\n8:pids:/services/skillet\n0::/\n');
    expect(Object.fromEntries(own)).toEqual({
      memory: '/services/skillet',
      cpu: '/',
      cpuacct: '/',
      pids: '/services/skillet',
      '': '/',
    });
  });

  it('does not name a container group twice when its mount shows that group as the top', () => {
    const mount = { root: '/docker/abc', mountPoint: '/sys/fs/cgroup/memory' };
    expect(groupFolder(mount, '/docker/abc')).toBe('/sys/fs/cgroup/memory');
    expect(groupFolder(mount, '/docker/abc/inner')).toBe('/sys/fs/cgroup/memory/inner');
    expect(groupFolder({ root: '/', mountPoint: '/sys/fs/cgroup' }, '/system.slice/skillet.service')).toBe(
      '/sys/fs/cgroup/system.slice/skillet.service',
    );
  });

  it('reads counters from flat-keyed files', () => {
    expect(counterIn('low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n', 'oom_kill')).toBe(1);
    expect(counterIn('max 12', 'max')).toBe(12);
    expect(counterIn('', 'max')).toBe(0);
  });
});

let host: CgroupHost | undefined;
let noHost = '';
beforeAll(async () => {
  const found = await detectCgroups();
  host = found.host;
  noHost = found.reason ?? '';
});

const groups: RunGroup[] = [];
afterEach(async () => {
  for (const group of groups.splice(0)) await group.remove();
});

async function groupOf(limits: { memoryBytes: number; processes: number; cpuSeconds: number }): Promise<RunGroup> {
  if (!host) throw new Error(`this machine has no cgroup control for the kernel-limit tests: ${noHost}`);
  const group = await host.create(limits);
  groups.push(group);
  return group;
}

/** Runs `file args` inside `group`; resolves with how it ended and the pid it had. */
function runIn(group: RunGroup, file: string, args: string[]) {
  const { file: wrapped, args: wrappedArgs } = launchCommand({ file, args }, { procsFiles: group.procsFiles });
  const child = spawn(wrapped, wrappedArgs, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, output })),
  );
  return { child, ended };
}

/** The group's folder in the pids hierarchy, read from a member's /proc entry as the kernel reports it. */
function pidsFolderOf(pid: number): string {
  const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((entry) => /^\d+:([^:]*,)?pids(,[^:]*)?:/.test(entry) || entry.startsWith('0::'));
  const groupPath = line?.split(':')[2] ?? '';
  const mounts = cgroupMounts(readFileSync('/proc/self/mountinfo', 'utf8'));
  const mount = mounts.v1.get('pids') ?? mounts.v2;
  if (!mount) throw new Error('no pids hierarchy');
  return groupFolder(mount, groupPath);
}

describe.runIf(process.platform === 'linux')('a run group holds hostile code to its limits through the kernel', () => {
  it('keeps a process bomb under the cap at every moment, and kill leaves no process behind', async () => {
    const group = await groupOf({ memoryBytes: 256 * MIB, processes: 16, cpuSeconds: 60 });
    const forks = [
      'import os, sys, time',
      'started = 0',
      'for i in range(500):',
      '    try:',
      '        if os.fork() == 0:',
      '            time.sleep(30)',
      '            os._exit(0)',
      '        started += 1',
      '    except OSError:',
      '        pass',
      'print(started, flush=True)',
      'time.sleep(30)',
    ].join('\n');
    const bomb = runIn(group, SANDBOX_PYTHON, ['-c', forks]);
    await new Promise<void>((resolve) => bomb.child.stdout.once('data', () => resolve()));
    const folder = pidsFolderOf(bomb.child.pid as number);
    expect(Number(readFileSync(`${folder}/pids.peak`, 'utf8'))).toBeLessThanOrEqual(16);
    expect(await group.breach()).toEqual({ limit: 'processes', count: 16 });
    await group.kill();
    expect(readFileSync(`${folder}/cgroup.procs`, 'utf8').trim()).toBe('');
    expect((await bomb.ended).signal).toBe('SIGKILL');
  });

  it('kills a process that allocates past the memory limit', async () => {
    const group = await groupOf({ memoryBytes: 64 * MIB, processes: 16, cpuSeconds: 60 });
    const hog = runIn(group, SANDBOX_PYTHON, ['-c', 'x = bytearray(300 * 1024 * 1024)\nprint("survived")']);
    const ended = await hog.ended;
    expect(ended.signal).toBe('SIGKILL');
    expect(ended.output).not.toMatch(/survived/);
    expect(await group.breach()).toEqual({ limit: 'memory', bytes: 64 * MIB });
  });

  it('counts a memory kill once answered no more, so a computer run goes on past it (issue 49)', async () => {
    const group = await groupOf({ memoryBytes: 64 * MIB, processes: 16, cpuSeconds: 60 });
    const hog = ['-c', 'x = b"a" * (300 * 1024 * 1024)'];
    expect((await runIn(group, SANDBOX_PYTHON, hog).ended).signal).toBe('SIGKILL');
    // A computer's own check leaves memory to the call that finds the kill.
    expect(await group.breach({ memory: false })).toBeUndefined();
    expect(await group.answerMemoryKills()).toBe(1);
    expect(await group.breach()).toBeUndefined();
    expect(await group.answerMemoryKills()).toBe(0);
    expect((await runIn(group, SANDBOX_PYTHON, hog).ended).signal).toBe('SIGKILL');
    expect(await group.breach()).toEqual({ limit: 'memory', bytes: 64 * MIB });
    expect(await group.answerMemoryKills()).toBe(1);
  });

  it('counts socket buffers: 400 socket pairs filled to their largest buffers are killed at the memory limit', async () => {
    const group = await groupOf({ memoryBytes: 64 * MIB, processes: 16, cpuSeconds: 60 });
    const hoard = [
      'import socket',
      'pairs = []',
      'for i in range(400):',
      '    a, b = socket.socketpair()',
      '    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 8 << 20)',
      '    a.setblocking(False)',
      '    try:',
      '        while True: a.send(b"x" * 65536)',
      '    except BlockingIOError: pass',
      '    pairs.append((a, b))',
      'print("held them all")',
    ].join('\n');
    const ended = await runIn(group, SANDBOX_PYTHON, ['-c', hoard]).ended;
    expect(ended.output).not.toMatch(/held them all/);
    expect(await group.breach()).toEqual({ limit: 'memory', bytes: 64 * MIB });
  });

  it('counts /dev/shm in the sandbox against the memory limit', async () => {
    const group = await groupOf({ memoryBytes: 64 * MIB, processes: 16, cpuSeconds: 60 });
    const fill = runIn(group, 'bwrap', [
      '--unshare-all',
      '--die-with-parent',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      'dd',
      'if=/dev/zero',
      'of=/dev/shm/fill',
      'bs=1M',
      'count=300',
    ]);
    const ended = await fill.ended;
    expect(ended.code).not.toBe(0);
    expect(await group.breach()).toEqual({ limit: 'memory', bytes: 64 * MIB });
  });

  it('counts CPU for the run as a whole: two calls under the budget each go over it together', async () => {
    const group = await groupOf({ memoryBytes: 256 * MIB, processes: 16, cpuSeconds: 1 });
    const burn = ['-c', 'import time\nend = time.process_time() + 0.7\nwhile time.process_time() < end: pass'];
    expect((await runIn(group, SANDBOX_PYTHON, burn).ended).code).toBe(0);
    expect(await group.breach()).toBeUndefined();
    expect((await runIn(group, SANDBOX_PYTHON, burn).ended).code).toBe(0);
    expect(await group.breach()).toMatchObject({ limit: 'cpu' });
  });
});

/** Every folder the process `pid` has in the hierarchies a run group spans (v1's three, or v2's one). */
function runGroupFoldersOf(pid: number): string[] {
  const mounts = cgroupMounts(readFileSync('/proc/self/mountinfo', 'utf8'));
  const lines = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n').filter(Boolean);
  const v1 = ['memory', 'pids', 'cpuacct'].flatMap((controller) => {
    const mount = mounts.v1.get(controller);
    const line = lines.find((entry) => entry.split(':')[1]?.split(',').includes(controller));
    return mount && line ? [groupFolder(mount, line.split(':')[2] ?? '/')] : [];
  });
  if (v1.length === 3) return [...new Set(v1)];
  const unified = lines.find((entry) => entry.startsWith('0::'));
  return mounts.v2 && unified ? [groupFolder(mounts.v2, unified.slice(3))] : [];
}

describe.runIf(process.platform === 'linux')('the run groups of a server killed outright', () => {
  it('are cleared at the next start, a sandbox still running in one stopped first', async () => {
    const group = await groupOf({ memoryBytes: 64 * MIB, processes: 16, cpuSeconds: 60 });
    // A sandbox caught starting as its server died runs on (run-cgroup.ts): here, a sleeper.
    const stray = runIn(group, '/bin/sh', ['-c', 'sleep 60 & sleep 60; wait']);
    await expect
      .poll(
        () =>
          readFileSync(path.join(pidsFolderOf(stray.child.pid as number), 'cgroup.procs'), 'utf8')
            .trim()
            .split('\n').length,
      )
      .toBe(3);
    // The group becomes a dead server's: named for a pid that has exited.
    const deadPid = spawnSync('true').pid;
    const folders = runGroupFoldersOf(stray.child.pid as number);
    const name = `run-${deadPid}-${randomUUID()}`;
    const renamed = folders.map((folder) => path.join(path.dirname(folder), name));
    for (const [i, folder] of folders.entries()) renameSync(folder, renamed[i] as string);

    // A live server's group, empty or not, is left alone.
    const live = await groupOf({ memoryBytes: 64 * MIB, processes: 16, cpuSeconds: 60 });
    const working = runIn(live, '/bin/sh', ['-c', 'sleep 60']);
    await expect
      .poll(() => readFileSync(path.join(pidsFolderOf(working.child.pid as number), 'cgroup.procs'), 'utf8').trim())
      .not.toBe('');

    const cleared = await host?.clearLeftovers();
    // Its three processes (other test files' dead servers may add theirs).
    expect(cleared?.stopped).toBeGreaterThanOrEqual(3);
    expect((await stray.ended).signal).toBe('SIGKILL');
    for (const folder of renamed) expect(existsSync(folder)).toBe(false);
    expect(working.child.exitCode).toBeNull();
    await live.kill();
  });
});

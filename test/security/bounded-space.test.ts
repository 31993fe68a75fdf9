import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { cgroupMounts, groupFolder, ownGroups } from '../../src/sandbox/cgroup-detection.js';
import { boundedUsage, openBoundedFolder, PAGE_BYTES, runMountsUnder } from '../../src/sandbox/run-space.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import { runSkillScript } from '../../src/sandbox/script-sandbox.js';
import type { RunLimits } from '../../src/sandbox/types.js';
import { createExecution, sendMessage } from '../helpers/executions.js';
import { signUp } from '../helpers/factories.js';
import { client } from '../helpers/http.js';
import { type ServerProcesses, serverProcesses } from '../helpers/process.js';
import { BOUNDED_SPACE_HERE, BUBBLEWRAP_HERE, KERNEL_LIMITS_HERE } from '../helpers/sandbox.js';

/**
 * What a run may write, held by the kernel (issue 27): /dev in the sandbox, the run's own
 * folders as tmpfs of their own size, and what a server killed outright leaves behind.
 */
const here = await detectSandbox('auto');
const MIB = 1024 * 1024;
const AGENT_HOSTILE = path.join(PROJECT_ROOT, 'test/skills/agent-hostile');
const SHM_BYTES = 16 * MIB;
const LIMITS: RunLimits & { builtIn: boolean } = {
  timeoutMs: 20_000,
  memoryMb: 256,
  cpuSeconds: 10,
  // Above /dev/shm's bound, so the file-size limit (the same number) is not what stops the writer.
  outputLimitBytes: 64 * MIB,
  outputFileLimit: 50,
  lineLimitBytes: MIB,
  eventBytesPerRun: 8 * MIB,
  processLimit: 16,
  builtIn: false,
};

let root: string;
beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'skillet-space-'));
});
afterEach(() => rm(root, { recursive: true, force: true }));

const mountsUnder = async (dir: string) => runMountsUnder(await readFile('/proc/self/mountinfo', 'utf8'), dir);

describe.runIf(BUBBLEWRAP_HERE && existsSync('/usr/bin/python3'))('the sandbox /dev', () => {
  it('holds a script that fills /dev/shm to its bound, lets it make nothing in /dev, and the host sees none of it', async () => {
    const marker = `skillet-shm-${randomUUID()}`;
    const request = { skillDir: AGENT_HOSTILE, scriptPath: 'scripts/fills-shm.py', args: [marker], stdin: '', outputDir: root };
    const result = await runSkillScript(request, here, LIMITS, new AbortController().signal);
    expect(result).toMatchObject({ exitCode: 0, stderr: '' });
    const filled = /shm: ENOSPC after (\d+) bytes/.exec(result.stdout);
    expect(Number(filled?.[1])).toBeLessThanOrEqual(SHM_BYTES);
    expect(result.stdout.match(/^dev: .*$/gm)).toEqual(['dev: EROFS', 'dev: EROFS']);
    expect(existsSync(`/dev/shm/${marker}`)).toBe(false);
    expect(existsSync(`/dev/${marker}`)).toBe(false);
  });
});

describe.runIf(BOUNDED_SPACE_HERE)('a bounded folder', () => {
  const limits = { bytes: 16 * PAGE_BYTES, files: 4 };

  it('refuses writes at its bound, deleted files still open included, and is unmounted when released', async () => {
    const folder = await openBoundedFolder(here.boundedSpace, path.join(root, 'run'), limits);
    expect(folder.bounded).toBe(true);
    expect(await mountsUnder(root)).toEqual([folder.dir]);
    const hidden = openSync(path.join(folder.dir, 'hidden.bin'), 'w');
    unlinkSync(path.join(folder.dir, 'hidden.bin'));
    let written = 0;
    const page = Buffer.alloc(PAGE_BYTES, 1);
    expect(() => {
      for (let round = 0; round < 1000; round++) written += writeSync(hidden, page);
    }).toThrow(/ENOSPC/);
    expect(written).toBe(limits.bytes);
    // No file shows, yet the folder is full: what the output check reads.
    expect(await readdir(folder.dir)).toEqual([]);
    expect(await boundedUsage(folder.dir, limits)).toEqual({ bytes: limits.bytes, files: 1, full: true });
    // Released while the file is still open: unmounted lazily, and the folder is gone.
    await folder.release();
    expect(await mountsUnder(root)).toEqual([]);
    expect(existsSync(folder.dir)).toBe(false);
    closeSync(hidden);
  });

  it('refuses entries past its count', async () => {
    const folder = await openBoundedFolder(here.boundedSpace, path.join(root, 'run'), limits);
    for (let file = 0; file < limits.files; file++) closeSync(openSync(path.join(folder.dir, `f${file}`), 'w'));
    expect(() => openSync(path.join(folder.dir, 'one-more'), 'w')).toThrow(/ENOSPC/);
    expect(await boundedUsage(folder.dir, limits)).toMatchObject({ files: limits.files, full: true });
    await folder.release();
  });

  it('is not taken for another bound, nor an ordinary folder for a bounded one', async () => {
    const folder = await openBoundedFolder(here.boundedSpace, path.join(root, 'run'), limits);
    expect(await boundedUsage(folder.dir, { ...limits, files: 5 })).toBeUndefined();
    expect(await boundedUsage(root, limits)).toBeUndefined();
    await folder.release();
  });
});

describe('a folder where the server cannot mount', () => {
  it('is an ordinary folder, removed when released', async () => {
    const folder = await openBoundedFolder(undefined, path.join(root, 'run'), { bytes: PAGE_BYTES, files: 1 });
    expect(folder.bounded).toBe(false);
    expect(existsSync(folder.dir)).toBe(true);
    await folder.release();
    expect(existsSync(folder.dir)).toBe(false);
  });
});

/** The folders run groups go under here, one per hierarchy, as a server started from this process makes them. */
async function runGroupFolders(): Promise<string[]> {
  const mounts = cgroupMounts(await readFile('/proc/self/mountinfo', 'utf8'));
  const own = ownGroups(await readFile('/proc/self/cgroup', 'utf8'));
  const v1 = ['memory', 'pids', 'cpuacct'].flatMap((controller) => {
    const mount = mounts.v1.get(controller);
    return mount ? [path.join(groupFolder(mount, own.get(controller) ?? '/'), 'skillet-runs')] : [];
  });
  if (v1.length === 3) return [...new Set(v1)];
  return mounts.v2 ? [path.join(groupFolder(mounts.v2, own.get('') ?? '/'), 'skillet-runs')] : [];
}

/** Each process left in `group`, with its state, its parent and its command line: what a failure needs to say. */
async function processesIn(group: string): Promise<string> {
  const pids = (await readFile(path.join(group, 'cgroup.procs'), 'utf8')).split('\n').filter(Boolean);
  const described = await Promise.all(
    pids.map(async (pid) => {
      const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
      const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(status)?.[1] ?? '?';
      return `${pid} (${field('State')}, parent ${field('PPid')}): ${command.replaceAll('\0', ' ').slice(0, 200)}`;
    }),
  );
  return described.join('\n');
}

async function groupsOf(pid: number): Promise<string[]> {
  const found: string[] = [];
  for (const folder of await runGroupFolders()) {
    for (const name of await readdir(folder).catch(() => [] as string[])) {
      if (name.startsWith(`run-${pid}-`)) found.push(path.join(folder, name));
    }
  }
  return found;
}

describe.runIf(BUBBLEWRAP_HERE && BOUNDED_SPACE_HERE && KERNEL_LIMITS_HERE)('a server killed outright', () => {
  let servers: ServerProcesses;
  beforeAll(async () => {
    servers = await serverProcesses('space-crash');
  }, 120_000);
  afterAll(() => servers?.cleanUp());

  it('leaves a run mount and an empty run group, and the next start clears both', { timeout: 90_000 }, async () => {
    const first: ChildProcess = await servers.start();
    const api = client(servers.baseUrl);
    const person = await signUp(api);
    const created = await createExecution(api, person, 'hangs', 'wait');
    expect((await sendMessage(api, person, created.id, 'wait')).status).toBe(200);
    const scratch = path.join(servers.dataDir, 'scratch');
    // The run's output folder (this server keeps no sandboxes warm).
    await expect.poll(() => mountsUnder(scratch), { timeout: 20_000 }).not.toEqual([]);
    await expect.poll(() => groupsOf(first.pid as number), { timeout: 20_000 }).not.toEqual([]);
    // Killed once the skill runs: a server killed while bubblewrap sets the sandbox up, in its
    // first millisecond or two, leaves it running (run-group.test.ts has that case).
    await expect
      .poll(async () => (await Promise.all((await groupsOf(first.pid as number)).map(processesIn))).join('\n'), {
        timeout: 20_000,
      })
      // A process bubblewrap started: not bubblewrap, nor the shell or setpriv that start it.
      .toMatch(/\): (?!\S*(?:bwrap|\/sh|setpriv) )\S/);
    await new Promise((resolve) => setTimeout(resolve, 200));

    first.kill('SIGKILL');
    await new Promise((resolve) => first.once('exit', resolve));
    const leftMounts = await mountsUnder(scratch);
    const leftGroups = await groupsOf(first.pid as number);
    const leftFolders = await readdir(scratch);
    expect(leftMounts).not.toEqual([]);
    expect(leftGroups).not.toEqual([]);
    // The sandbox dies with the server (bubblewrap's --die-with-parent): the groups empty.
    for (const group of leftGroups) {
      await expect.poll(() => processesIn(group), { timeout: 10_000 }).toBe('');
    }

    // The new server clears them all before it starts anything there.
    await servers.start();
    expect((await mountsUnder(scratch)).filter((mount) => leftMounts.includes(mount))).toEqual([]);
    expect(await groupsOf(first.pid as number)).toEqual([]);
    const folders = await readdir(scratch).catch(() => []);
    expect(folders.filter((name) => leftFolders.includes(name))).toEqual([]);
  });
});

import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CgroupHost, GroupLimits, RunGroup } from '../ports/sandbox.js';
import { clearLeftoverGroups, runGroupName } from './run-cgroup-leftovers.js';

export const RUNS_FOLDER = 'skillet-runs';

const KILL_ROUNDS = 200;

const KILL_PAUSE_MS = 5;

/**
 * The wait before the next look: a killed process is usually gone within a millisecond, and a
 * run's end waits for this, so the first looks come soon and later ones back off.
 */
const pause = (round: number) => new Promise((resolve) => setTimeout(resolve, Math.min(round, KILL_PAUSE_MS)));

export async function readText(file: string): Promise<string> {
  return readFile(file, 'utf8').catch(() => '');
}

/** A counter from a flat-keyed file such as memory.events or pids.events ("max 3"). */
export function counterIn(text: string, key: string): number {
  for (const line of text.split('\n')) {
    const [name, value] = line.trim().split(/\s+/);
    if (name === key) return Number(value) || 0;
  }
  return 0;
}

const listedIn = async (procsFile: string) => (await readText(procsFile)).split('\n').filter((line) => line.trim() !== '');

/** SIGKILLs every process listed in `procsFile` until it lists none; the process cap keeps this finite. */
async function killListed(procsFile: string): Promise<void> {
  for (let round = 0; round < KILL_ROUNDS; round++) {
    const pids = await listedIn(procsFile);
    if (pids.length === 0) return;
    for (const pid of pids) {
      try {
        process.kill(Number(pid), 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await pause(round);
  }
}

/**
 * A dead server's group, which should be empty: its sandboxes die with it (bubblewrap's
 * --die-with-parent, launch-command.ts). All but one: bubblewrap's sandboxed first process
 * takes the parent-death signal only once it has set up its namespaces, a millisecond or two
 * after it was forked, and a server killed in that window leaves it running with no parent.
 * It is stopped here, the group's limits having held it meanwhile. Returns how many were.
 */
async function clearDeadServersGroup(dir: string): Promise<number> {
  const stray = (await listedIn(path.join(dir, 'cgroup.procs'))).length;
  if (stray === 0) {
    await rmdir(dir);
    return 0;
  }
  await writeFile(path.join(dir, 'cgroup.kill'), '1').catch(() => undefined);
  await killListed(path.join(dir, 'cgroup.procs'));
  if (!(await removeFolder(dir))) throw new Error(`the run group ${dir} is still busy`);
  return stray;
}

/** rmdir, retried while the kernel still counts the processes just killed; whether the folder is gone. */
async function removeFolder(dir: string): Promise<boolean> {
  for (let round = 0; round < KILL_ROUNDS; round++) {
    try {
      await rmdir(dir);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
      await pause(round);
    }
  }
  return false;
}

/** The folders of the v1 hierarchies a run group needs, keyed by controller. */
interface V1Folders {
  memory: string;
  pids: string;
  cpuacct: string;
}

/**
 * The kernel's count of memory kills in a group, and how many of them were answered already:
 * the count only grows, and a run that goes on after a kill must not meet it again.
 */
function memoryKillCount(read: () => Promise<number>) {
  let answered = 0;
  return {
    unanswered: async () => (await read()) - answered,
    async answer() {
      const total = await read();
      const fresh = total - answered;
      answered = total;
      return fresh;
    },
  };
}

function v1Group(folders: V1Folders, limits: GroupLimits): RunGroup {
  const dirs = [...new Set(Object.values(folders))];
  const cpuBudgetNs = limits.cpuSeconds * 1e9;
  const kills = memoryKillCount(async () =>
    counterIn(await readText(path.join(folders.memory, 'memory.oom_control')), 'oom_kill'),
  );
  return {
    procsFiles: dirs.map((dir) => path.join(dir, 'cgroup.procs')),
    answerMemoryKills: kills.answer,
    async breach(options = { memory: true }) {
      const [unanswered, pids, cpu] = await Promise.all([
        options.memory ? kills.unanswered() : 0,
        readText(path.join(folders.pids, 'pids.events')),
        readText(path.join(folders.cpuacct, 'cpuacct.usage')),
      ]);
      if (unanswered > 0) return { limit: 'memory', bytes: limits.memoryBytes };
      if (counterIn(pids, 'max') > 0) return { limit: 'processes', count: limits.processes };
      const usedNs = Number(cpu.trim()) || 0;
      if (usedNs > cpuBudgetNs) return { limit: 'cpu', seconds: usedNs / 1e9 };
      return undefined;
    },
    kill: () => killListed(path.join(folders.pids, 'cgroup.procs')),
    async remove() {
      await killListed(path.join(folders.pids, 'cgroup.procs'));
      for (const dir of dirs) await removeFolder(dir);
    },
  };
}

function v2Group(dir: string, limits: GroupLimits): RunGroup {
  const cpuBudgetUs = limits.cpuSeconds * 1e6;
  const kill = async () => {
    // cgroup.kill (Linux 5.14) kills the whole group at once, racing no fork.
    await writeFile(path.join(dir, 'cgroup.kill'), '1').catch(() => undefined);
    await killListed(path.join(dir, 'cgroup.procs'));
  };
  const kills = memoryKillCount(async () => counterIn(await readText(path.join(dir, 'memory.events')), 'oom_kill'));
  return {
    procsFiles: [path.join(dir, 'cgroup.procs')],
    answerMemoryKills: kills.answer,
    async breach(options = { memory: true }) {
      const [unanswered, pids, cpu] = await Promise.all([
        options.memory ? kills.unanswered() : 0,
        readText(path.join(dir, 'pids.events')),
        readText(path.join(dir, 'cpu.stat')),
      ]);
      if (unanswered > 0) return { limit: 'memory', bytes: limits.memoryBytes };
      if (counterIn(pids, 'max') > 0) return { limit: 'processes', count: limits.processes };
      const usedUs = counterIn(cpu, 'usage_usec');
      if (usedUs > cpuBudgetUs) return { limit: 'cpu', seconds: usedUs / 1e6 };
      return undefined;
    },
    kill,
    async remove() {
      await kill();
      await removeFolder(dir);
    },
  };
}

/** A cgroup v2 host: run groups go under `base` (the server's own group, or a folder it owns). */
export function v2Host(base: string): CgroupHost {
  return {
    version: 2,
    async create(limits) {
      const dir = path.join(base, runGroupName());
      await mkdir(dir);
      try {
        await writeFile(path.join(dir, 'memory.max'), String(limits.memoryBytes));
        await writeFile(path.join(dir, 'memory.swap.max'), '0').catch(() => undefined);
        await writeFile(path.join(dir, 'pids.max'), String(limits.processes));
      } catch (error) {
        await removeFolder(dir);
        throw error;
      }
      return v2Group(dir, limits);
    },
    clearLeftovers: () => clearLeftoverGroups([base], clearDeadServersGroup),
  };
}

/** A cgroup v1 host: run groups go under `bases` (one folder in each controller's hierarchy). */
export function v1Host(bases: V1Folders): CgroupHost {
  return {
    version: 1,
    async create(limits) {
      const name = runGroupName();
      const folders: V1Folders = {
        memory: path.join(bases.memory, name),
        pids: path.join(bases.pids, name),
        cpuacct: path.join(bases.cpuacct, name),
      };
      const dirs = [...new Set(Object.values(folders))];
      try {
        for (const dir of dirs) await mkdir(dir);
        const memory = String(limits.memoryBytes);
        await writeFile(path.join(folders.memory, 'memory.limit_in_bytes'), memory);
        // With swap accounting, memory and swap together; without it the file is absent.
        await writeFile(path.join(folders.memory, 'memory.memsw.limit_in_bytes'), memory).catch(() => undefined);
        // v1 charges TCP buffers only once their own limit is set (other sockets are kernel memory, always charged).
        await writeFile(path.join(folders.memory, 'memory.kmem.tcp.limit_in_bytes'), memory).catch(() => undefined);
        await writeFile(path.join(folders.pids, 'pids.max'), String(limits.processes));
      } catch (error) {
        for (const dir of dirs) await removeFolder(dir);
        throw error;
      }
      return v1Group(folders, limits);
    },
    clearLeftovers: () => clearLeftoverGroups([...new Set(Object.values(bases))], clearDeadServersGroup),
  };
}

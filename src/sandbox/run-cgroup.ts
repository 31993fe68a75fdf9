import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CgroupHost, GroupLimits, RunGroup } from '../ports/sandbox.js';
import { clearLeftoverGroups, runGroupName } from './run-cgroup-leftovers.js';

const RUNS_FOLDER = 'skillet-runs';
const KILL_ROUNDS = 200;
const KILL_PAUSE_MS = 5;

/**
 * The wait before the next look: a killed process is usually gone within a millisecond, and a
 * run's end waits for this, so the first looks come soon and later ones back off.
 */
const pause = (round: number) => new Promise((resolve) => setTimeout(resolve, Math.min(round, KILL_PAUSE_MS)));

async function readText(file: string): Promise<string> {
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
function v2Host(base: string): CgroupHost {
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
function v1Host(bases: V1Folders): CgroupHost {
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

/** Where a hierarchy is mounted, and which of its groups the mount shows as its top. */
export interface CgroupMount {
  mountPoint: string;
  root: string;
}

/** The hierarchies mounted on this machine: by controller (v1), and the v2 one, read from mountinfo. */
export function cgroupMounts(mountinfo: string): { v1: Map<string, CgroupMount>; v2: CgroupMount | undefined } {
  const v1 = new Map<string, CgroupMount>();
  let v2: CgroupMount | undefined;
  for (const line of mountinfo.split('\n')) {
    const [mountPart, fsPart] = line.split(' - ');
    if (!mountPart || !fsPart) continue;
    const fields = mountPart.split(' ');
    const mount = { root: fields[3] ?? '/', mountPoint: fields[4] ?? '' };
    const [fsType, , superOptions = ''] = fsPart.split(' ');
    if (fsType === 'cgroup2') v2 ??= mount;
    if (fsType !== 'cgroup') continue;
    for (const option of superOptions.split(',')) if (['memory', 'pids', 'cpuacct'].includes(option)) v1.set(option, mount);
  }
  return { v1, v2 };
}

/** The folder of group `group` under `mount`: a container's mount may show its own group as the top. */
export function groupFolder(mount: CgroupMount, group: string): string {
  const relative =
    mount.root !== '/' && (group === mount.root || group.startsWith(`${mount.root}/`)) ? group.slice(mount.root.length) : group;
  return path.join(mount.mountPoint, relative);
}

/** This process's group in each hierarchy, from /proc/self/cgroup: by controller (v1), and '' for v2. */
export function ownGroups(procSelfCgroup: string): Map<string, string> {
  const groups = new Map<string, string>();
  for (const line of procSelfCgroup.split('\n')) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, controllers = '', groupPath = '/'] = match;
    if (controllers === '') groups.set('', groupPath);
    for (const controller of controllers.split(',')) if (controller !== '') groups.set(controller, groupPath);
  }
  return groups;
}

const NEEDED_V2 = ['memory', 'pids', 'cpu'];

/**
 * Gives the server's cgroup v2 group the controllers run groups need. A group with processes
 * of its own cannot hand controllers down (the kernel's no-internal-process rule), so the
 * server first moves itself into a leaf of its own group, as systemd's delegation expects.
 */
async function prepareV2(own: string): Promise<string> {
  const available = (await readFile(path.join(own, 'cgroup.controllers'), 'utf8')).split(/\s+/);
  const missing = NEEDED_V2.filter((controller) => !available.includes(controller));
  if (missing.length > 0) throw new Error(`the ${missing.join(', ')} controller(s) are not delegated to this server's group`);
  const runs = path.join(own, RUNS_FOLDER);
  const enable = NEEDED_V2.map((controller) => `+${controller}`).join(' ');
  try {
    await writeFile(path.join(own, 'cgroup.subtree_control'), enable);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EBUSY') throw error;
    const leaf = path.join(own, 'skillet-server');
    await mkdir(leaf, { recursive: true });
    for (const pid of (await readText(path.join(own, 'cgroup.procs'))).split('\n').filter(Boolean)) {
      await writeFile(path.join(leaf, 'cgroup.procs'), pid).catch(() => undefined);
    }
    await writeFile(path.join(own, 'cgroup.subtree_control'), enable);
  }
  await mkdir(runs, { recursive: true });
  await writeFile(path.join(runs, 'cgroup.subtree_control'), enable);
  return runs;
}

/** A v1 hierarchy's folder for run groups, under the server's own group there. */
async function prepareV1(mount: CgroupMount, own: string): Promise<string> {
  const runs = path.join(groupFolder(mount, own), RUNS_FOLDER);
  await mkdir(runs, { recursive: true });
  return runs;
}

/** How a server gets cgroup control, for the message that refuses the computer without it. */
export const GRANT_CGROUPS_HINT =
  'run the server as root, in a container that gives it its own cgroup namespace (Docker does), ' +
  'or under systemd with Delegate=yes in its unit (see docs/operations.md)';

/**
 * Finds the cgroup control this server has and makes the folder run groups go under (a
 * throwaway group proves that limits can be written). The reason is set when there is none.
 */
export async function detectCgroups(
  files: { mountinfo: string; procSelfCgroup: string } | undefined = undefined,
): Promise<{ host: CgroupHost; reason?: undefined } | { host?: undefined; reason: string }> {
  try {
    const mountinfo = files?.mountinfo ?? (await readFile('/proc/self/mountinfo', 'utf8'));
    const own = ownGroups(files?.procSelfCgroup ?? (await readFile('/proc/self/cgroup', 'utf8')));
    const mounts = cgroupMounts(mountinfo);
    const v1Needed = ['memory', 'pids', 'cpuacct'];
    let host: CgroupHost;
    if (v1Needed.every((controller) => mounts.v1.has(controller))) {
      const [memory, pids, cpuacct] = await Promise.all(
        v1Needed.map((controller) => prepareV1(mounts.v1.get(controller) as CgroupMount, own.get(controller) ?? '/')),
      );
      host = v1Host({ memory: memory as string, pids: pids as string, cpuacct: cpuacct as string });
    } else if (mounts.v2) {
      host = v2Host(await prepareV2(groupFolder(mounts.v2, own.get('') ?? '/')));
    } else {
      return { reason: 'this machine has no cgroup hierarchy with the memory, pids and cpu controllers' };
    }
    const trial = await host.create({ memoryBytes: 64 * 1024 * 1024, processes: 4, cpuSeconds: 1 });
    await trial.remove();
    return { host };
  } catch (error) {
    return { reason: `this server cannot make control groups (${(error as Error).message})` };
  }
}

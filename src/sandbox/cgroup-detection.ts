import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CgroupHost } from '../ports/sandbox.js';
import { RUNS_FOLDER, readText, v1Host, v2Host } from './run-cgroup.js';

/*
 * Finding the cgroup control this server has (v2, or the v1 memory, pids and cpuacct
 * controllers), from mountinfo and the process's own groups, and making the folder run
 * groups go under.
 */

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

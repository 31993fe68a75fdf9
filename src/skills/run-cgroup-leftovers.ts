import { randomUUID } from 'node:crypto';
import { readdir, rmdir } from 'node:fs/promises';
import path from 'node:path';

/**
 * A run group's name carries the pid of the server that made it: several servers may share
 * one parent group, and an empty group is not a leftover while its server lives (an agent
 * run's group is empty between two scripts).
 */
export function runGroupName(pid = process.pid): string {
  return `run-${pid}-${randomUUID()}`;
}

/** The pid of the server that made the group `name`, when it is a run group's name. */
export function ownerOfGroup(name: string): number | undefined {
  const match = /^run-(\d+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.exec(name);
  return match ? Number(match[1]) : undefined;
}

/** Whether `pid` names a live process (one of another user's counts: EPERM, not ESRCH). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the run groups under `folders` whose server is gone. The kernel refuses to remove a
 * group with a process in it, so a group still holding one stays. A pid reused since its
 * server died keeps that server's empty groups for a while longer: a few folders, no harm.
 */
export async function clearLeftoverGroups(folders: string[]): Promise<number> {
  let removed = 0;
  for (const folder of folders) {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const owner = entry.isDirectory() ? ownerOfGroup(entry.name) : undefined;
      if (owner === undefined || alive(owner)) continue;
      try {
        await rmdir(path.join(folder, entry.name));
        removed += 1;
      } catch {
        // processes still in it (EBUSY), or gone already: left as it is
      }
    }
  }
  return removed;
}

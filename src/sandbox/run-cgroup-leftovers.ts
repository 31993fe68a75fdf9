import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { LeftoverGroups } from '../ports/sandbox.js';

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
 * Clears the run groups under `folders` whose server is gone, with `clear` (which stops what
 * is left in one, removes it, and says how many processes it stopped). A group that cannot be
 * removed stays for the next start. A pid reused since its server died keeps that server's
 * groups for a while longer: a few folders, no harm.
 */
export async function clearLeftoverGroups(folders: string[], clear: (dir: string) => Promise<number>): Promise<LeftoverGroups> {
  const cleared: LeftoverGroups = { removed: 0, stopped: 0 };
  for (const folder of folders) {
    const entries = await readdir(folder, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const owner = entry.isDirectory() ? ownerOfGroup(entry.name) : undefined;
      if (owner === undefined || alive(owner)) continue;
      try {
        cleared.stopped += await clear(path.join(folder, entry.name));
        cleared.removed += 1;
      } catch {
        // a process the kernel has not let go of yet (EBUSY), or gone already: left as it is
      }
    }
  }
  return cleared;
}

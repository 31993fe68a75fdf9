import { rm } from 'node:fs/promises';
import { releaseLeftoverMounts } from '../../src/sandbox/run-space.js';
import { detectSandbox } from '../../src/sandbox/sandbox.js';
import type { RunLimits } from '../../src/sandbox/types.js';

const here = await detectSandbox('auto');
if (here.kind !== 'bwrap') {
  console.warn(`\n[skillet] ${here.warning}\n[skillet] Tests run the test skills with SKILL_SANDBOX=none on this machine.\n`);
}

/**
 * SKILL_SANDBOX for test servers. The test skills are not built in, so without bubblewrap
 * they would be refused: such a machine runs them unconfined, and says so above.
 */
export const TEST_SANDBOX_SETTING = here.kind === 'bwrap' ? 'auto' : 'none';

/** Whether this machine runs skills inside bubblewrap. */
export const BUBBLEWRAP_HERE = here.kind === 'bwrap';

/** Whether the kernel holds runs to their limits here (cgroup control), rather than a watchdog. */
export const KERNEL_LIMITS_HERE = here.cgroups !== undefined;

/** Whether run folders are tmpfs of their own size here (the server may mount), rather than watched folders. */
export const BOUNDED_SPACE_HERE = here.boundedSpace !== undefined;

/**
 * Removes a test server's data folder, unmounting first any run folder a run mounted there
 * (a run the server's close did not wait for: one still starting when the test ended).
 */
export async function removeDataFolder(dir: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await releaseLeftoverMounts(here.boundedSpace, dir);
    try {
      await rm(dir, { recursive: true, force: true });
      return;
    } catch (error) {
      // A mount that was still being made shows up a moment later.
      if ((error as NodeJS.ErrnoException).code !== 'EBUSY' || attempt === 5) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Limits of a script run in the sandbox suites: generous for the tests' scripts, small enough to hold a hostile one. */
export const SCRIPT_LIMITS: RunLimits = {
  timeoutMs: 20_000,
  memoryMb: 256,
  cpuSeconds: 10,
  outputLimitBytes: 1024 * 1024,
  outputFileLimit: 50,
  lineLimitBytes: 1024 * 1024,
  eventBytesPerRun: 8 * 1024 * 1024,
  processLimit: 16,
};

import { detectSandbox } from '../../src/skills/sandbox.js';

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

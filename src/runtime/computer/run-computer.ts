import type { RunGroup } from '../../ports/sandbox.js';
import type { RunComputer } from '../../sandbox/computer/computer-session.js';
import { openComputer } from '../../sandbox/computer/open-computer.js';
import type { RunRequest, RuntimeServices } from '../runtime.js';

/**
 * Prepares the computer of one agent run and starts its sandbox ahead of the first call: the
 * cold path, when no warm computer (computer-pool.ts) was there to take.
 */
export async function openRunComputer(
  services: RuntimeServices,
  request: RunRequest,
  group: RunGroup | undefined,
): Promise<RunComputer> {
  const computer = await openComputer(
    services,
    {
      spaceDir: `${request.outputDir}-space`,
      skills: [{ slug: request.skill.slug, dir: request.skill.dir }],
      outputDir: request.outputDir,
      uploadsDir: request.uploads?.dir,
    },
    group,
  );
  try {
    await computer.claim(request.runId);
  } catch (error) {
    await computer.release();
    throw error;
  }
  computer.session.warmUp();
  return computer;
}

/**
 * Ends everything that runs in a run's computer: its supervisor and, where there is one,
 * every process of its group. A computer no call reached since the run took it (its count
 * still `callsAtTake`) ran nothing but its supervisor and idle shell, and neither writes to
 * the output, so the run's end need not wait for them to go (clearing it away still does).
 */
export async function stopRunComputer(computer: RunComputer, group: RunGroup | undefined, callsAtTake: number): Promise<void> {
  if (computer.session.calls === callsAtTake) {
    computer.session.close();
    return;
  }
  await Promise.all([computer.session.end(), group?.kill()]);
}

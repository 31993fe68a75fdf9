import type { RunGroup } from '../skills/run-cgroup.js';
import type { RunRequest, RuntimeServices } from '../skills/runtime.js';
import type { RunComputer } from './computer-session.js';
import { openComputer } from './open-computer.js';

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

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { egressPolicyOf } from '../skills/egress-policy.js';
import type { RunGroup } from '../skills/run-cgroup.js';
import { openBoundedFolder } from '../skills/run-space.js';
import type { RunRequest, RuntimeServices } from '../skills/runtime.js';
import { openComputerNetwork } from './computer-network.js';
import { ComputerSession } from './computer-session.js';

/** Entries /workspace, /tmp and /dev/shm may hold together: generous (a pip install makes thousands), yet bounded. */
const SPACE_FILES = 100_000;

/** A run's computer with what it stands on: its bounded space and its network. */
export interface RunComputer {
  session: ComputerSession;
  /** Hosts its network reaches; empty without one. */
  allowedHosts: readonly string[];
  /** Releases the space and the network, once the sandbox and the run's group are gone. */
  release(): Promise<void>;
}

/** Prepares the computer of one agent run (DESIGN §14) and starts its sandbox ahead of the first call. */
export async function openRunComputer(
  services: RuntimeServices,
  request: RunRequest,
  group: RunGroup | undefined,
): Promise<RunComputer> {
  const { config, sandbox } = services;
  const bytes = config.executions.workspaceLimitBytes;
  // Without the right to mount, the space is made inside the sandbox instead (see ComputerFolders).
  const space = sandbox.boundedSpace
    ? await openBoundedFolder(sandbox.boundedSpace, `${request.outputDir}-space`, { bytes, files: SPACE_FILES })
    : undefined;
  const policy = egressPolicyOf(config);
  let network: Awaited<ReturnType<typeof openComputerNetwork>>;
  try {
    if (space) for (const part of ['home', 'tmp', 'shm']) await mkdir(path.join(space.dir, part));
    network = await openComputerNetwork(policy, services.log, request.runId);
  } catch (error) {
    await space?.release();
    throw error;
  }
  const session = new ComputerSession({
    sandbox,
    folders: {
      skills: [{ slug: request.skill.slug, dir: request.skill.dir }],
      outputDir: request.outputDir,
      space: space ? { host: space.dir } : { sandbox: bytes },
      uploadsDir: request.uploads?.dir,
      networkDir: network?.folder,
    },
    group,
    env: network?.env ?? {},
  });
  session.warmUp();
  return {
    session,
    allowedHosts: network ? policy.allowedHosts : [],
    async release() {
      session.close();
      await network?.close();
      await space?.release();
    },
  };
}

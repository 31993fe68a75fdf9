import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { egressPolicyOf } from '../skills/egress-policy.js';
import type { RunGroup } from '../skills/run-cgroup.js';
import { openBoundedFolder } from '../skills/run-space.js';
import type { RunRequest, RuntimeServices } from '../skills/runtime.js';
import { openComputerNetwork } from './computer-network.js';
import { type ComputerFolders, ComputerSession } from './computer-session.js';

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

/** What one computer shows, and where its bounded space goes on the host. */
export interface ComputerPlan {
  /** The host folder the bounded space is made at (a tmpfs of its own where the server may mount). */
  spaceDir: string;
  skills: ComputerFolders['skills'];
  /**
   * The folder /mnt/session/outputs shows, kept after the computer (an agent run's result).
   * Without one it is a folder of the bounded space, gone with it: scratch.
   */
  outputDir: string | undefined;
  uploadsDir: string | undefined;
  /** Names the computer in its network's connection log. */
  runId: string;
}

/**
 * Prepares a computer (DESIGN §14): its bounded space (/workspace, /tmp, /dev/shm and, for a
 * scratch computer, its outputs, in one budget), its network when the operator allows hosts,
 * and the session, not yet started.
 */
export async function openComputer(
  services: RuntimeServices,
  plan: ComputerPlan,
  group: RunGroup | undefined,
): Promise<RunComputer> {
  const { config, sandbox } = services;
  const bytes = config.executions.workspaceLimitBytes;
  // Without the right to mount, the space is made inside the sandbox instead (see ComputerFolders).
  const space = sandbox.boundedSpace
    ? await openBoundedFolder(sandbox.boundedSpace, plan.spaceDir, { bytes, files: SPACE_FILES })
    : undefined;
  const policy = egressPolicyOf(config);
  let network: Awaited<ReturnType<typeof openComputerNetwork>>;
  try {
    const parts = ['home', 'tmp', 'shm', ...(plan.outputDir ? [] : ['outputs'])];
    if (space) for (const part of parts) await mkdir(path.join(space.dir, part));
    network = await openComputerNetwork(policy, services.log, plan.runId);
  } catch (error) {
    await space?.release();
    throw error;
  }
  const session = new ComputerSession({
    sandbox,
    folders: {
      skills: plan.skills,
      outputDir: plan.outputDir ?? (space ? path.join(space.dir, 'outputs') : undefined),
      space: space ? { host: space.dir } : { sandbox: bytes },
      uploadsDir: plan.uploadsDir,
      networkDir: network?.folder,
    },
    group,
    env: network?.env ?? {},
  });
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

/** Prepares the computer of one agent run and starts its sandbox ahead of the first call. */
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
      runId: request.runId,
    },
    group,
  );
  computer.session.warmUp();
  return computer;
}

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { RunGroup, SkillSandbox } from '../../ports/sandbox.js';
import { egressPolicyOf } from '../egress/egress-policy.js';
import type { ConnectionLog } from '../egress/egress-proxy.js';
import { openBoundedFolder } from '../run-space.js';
import { openComputerNetwork } from './computer-network.js';
import { type ComputerFolders, ComputerSession, type RunComputer } from './computer-session.js';

/** Entries /workspace, /tmp and /dev/shm may hold together: generous (a pip install makes thousands), yet bounded. */
const SPACE_FILES = 100_000;

/** What making a computer takes from the server. */
export interface ComputerServices {
  sandbox: SkillSandbox;
  config: {
    /** The computer's writable space, and the hosts its network reaches (DESIGN §14). */
    executions: { workspaceLimitBytes: number; allowedHosts: string[] };
    webhooks: { allowPrivateAddresses: boolean };
  };
  /** Its network's connection log. */
  log: ConnectionLog;
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
}

/**
 * Prepares a computer (DESIGN §14): its bounded space (/workspace, /tmp, /dev/shm and, for a
 * scratch computer, its outputs, in one budget), its network's folder when the operator
 * allows hosts (the proxy starts with `claim`), and the session, not yet started.
 */
export async function openComputer(
  services: ComputerServices,
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
    network = await openComputerNetwork(policy);
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
    workspaceDir: space ? path.join(space.dir, 'home') : undefined,
    async claim(runId) {
      await network?.connect(services.log, runId);
    },
    async release() {
      session.close();
      await network?.close();
      await space?.release();
    },
  };
}

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { EgressPolicy } from '../egress/egress-policy.js';
import { type ConnectionLog, type EgressProxy, startEgressProxy } from '../egress/egress-proxy.js';

/** The port the forwarder listens on inside the sandbox (computer/egress-forwarder.py). */
const FORWARDER = 'http://127.0.0.1:3128';
/** Where the proxy's folder is bound inside the sandbox. */
export const NETWORK_INSIDE = '/run/skillet-net';

export interface ComputerNetwork {
  /** The host folder holding the proxy's socket, bound read only at NETWORK_INSIDE. */
  folder: string;
  /** The shell's proxy variables, and the socket the supervisor starts the forwarder on. */
  env: Record<string, string>;
  /**
   * Starts the proxy, its connections logged as `runId`'s. Until then the folder is empty and a
   * connection from inside is refused by the forwarder: a warm computer (computer-pool.ts)
   * gets its network when a run takes it, as nothing runs inside before.
   */
  connect(log: ConnectionLog, runId: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The network of one computer, when the operator allows hosts: the egress proxy on a unix
 * socket of its own, started by `connect`. The folder is under the system's temporary folder
 * because a socket's path is limited to about 100 bytes, which a data folder's path may not leave.
 */
export async function openComputerNetwork(policy: EgressPolicy): Promise<ComputerNetwork | undefined> {
  if (policy.allowedHosts.length === 0) return undefined;
  const folder = await mkdtemp(path.join(tmpdir(), 'skillet-net-'));
  let proxy: EgressProxy | undefined;
  return {
    folder,
    env: {
      SKILLET_EGRESS_SOCKET: `${NETWORK_INSIDE}/proxy.sock`,
      HTTP_PROXY: FORWARDER,
      HTTPS_PROXY: FORWARDER,
      http_proxy: FORWARDER,
      https_proxy: FORWARDER,
    },
    async connect(log, runId) {
      proxy = await startEgressProxy({ socketPath: path.join(folder, 'proxy.sock'), policy, log, runId });
    },
    async close() {
      await proxy?.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

import type { FastifyBaseLogger } from 'fastify';
import type { RunRegistry } from '../ports/runs.js';
import { settlesWithin } from '../sandbox/settles-within.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The first half of a graceful stop (main.ts calls it on SIGTERM, before close): no new
     * run starts here, runs in progress get `graceMs` to finish, then the rest are stopped.
     * `cut` ends the wait early (a second signal).
     */
    drain(graceMs: number, cut?: AbortSignal): Promise<void>;
  }
}

export interface DrainingNode {
  runs: RunRegistry;
  /** A cluster worker's queue consumer: stops taking jobs, and settles once its jobs have ended. */
  closeWorker(): Promise<void> | undefined;
  log: FastifyBaseLogger;
}

/**
 * Lets the runs of a node told to stop finish within the grace period, then stops those
 * left, which end as interrupted (their users resume them). A worker of a cluster does not
 * hand a stopped run back to the queue: another worker would run it again from the start,
 * behind its user's back, and charge it again (decisions.md).
 */
export async function drainNode(node: DrainingNode, graceMs: number, cut?: AbortSignal): Promise<void> {
  const { runs, log } = node;
  runs.drain();
  const workerClosed = node.closeWorker()?.catch((error: unknown) => log.warn({ err: error }, 'run queue worker close failed'));
  log.info({ graceMs, inProgress: runs.size }, 'shutting down: taking no new runs, letting runs in progress finish');
  const allEnded = await runs.settleWithin(graceMs, cut);
  if (!allEnded) {
    log.warn({ stopped: runs.size }, 'grace period over: stopping the runs left');
    await runs.stopAll();
  }
  // The worker's close waits for its jobs. One taken just as it closed may add its run
  // after that stop: past the grace period, such runs are stopped too, until it is closed.
  while (workerClosed && !(await settlesWithin(workerClosed, STOP_AGAIN_MS))) {
    if (!allEnded) await runs.stopAll();
  }
}

const STOP_AGAIN_MS = 100;

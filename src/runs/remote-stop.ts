import type { AppContext } from '../context.js';
import type { ControlMessage } from '../ports/channels.js';
import { nodeChannel } from '../realtime/control-messages.js';
import { findExecution } from './executions.store.js';

/** How long a node is given to stop a run it owns before the run is closed in the store without it. */
const REMOTE_STOP_WAIT_MS = 10_000;
const STORE_CHECK_MS = 50;

/**
 * Lets other nodes stop the runs this node executes: cancel and interrupt arrive on any API
 * node, the run lives on one. Returns the unsubscribe.
 */
export function listenForRunStops(ctx: Pick<AppContext, 'control' | 'runs' | 'config'>): () => void {
  const channel = nodeChannel(ctx.config.nodeId);
  const listener = (message: ControlMessage) => {
    if (message.type === 'stop-run') ctx.runs.stopWhenAdded(message.executionId);
  };
  ctx.control.subscribe(channel, listener);
  return () => ctx.control.unsubscribe(channel, listener);
}

/**
 * Asks the node that owns a run to stop it, and waits until the store says it stopped.
 * False when that node did not stop it in time (it died, or it is cut off): the caller then
 * closes the run in the store itself.
 */
export async function stopOnOwner(
  ctx: Pick<AppContext, 'control' | 'db' | 'clock'>,
  executionId: string,
  ownerNode: string,
): Promise<boolean> {
  ctx.control.publish(nodeChannel(ownerNode), { type: 'stop-run', executionId, at: ctx.clock.now().toISOString() });
  return stoppedInTime(ctx, executionId);
}

/**
 * Stops a run this node owns but has not started yet (a worker took it from the queue and
 * is still setting it up): the stop is kept for it, as one from another node is, and the run
 * stops the moment it is added. False when it did not stop in time.
 */
export function stopOwnStartingRun(ctx: Pick<AppContext, 'runs' | 'db'>, executionId: string): Promise<boolean> {
  ctx.runs.stopWhenAdded(executionId);
  return stoppedInTime(ctx, executionId);
}

/** Waits until the store says the run is no longer working; false after REMOTE_STOP_WAIT_MS. */
async function stoppedInTime(ctx: Pick<AppContext, 'db'>, executionId: string): Promise<boolean> {
  const deadline = Date.now() + REMOTE_STOP_WAIT_MS;
  while (Date.now() < deadline) {
    const row = await findExecution(ctx.db, executionId);
    if (row?.status !== 'working') return true;
    await new Promise((resolve) => setTimeout(resolve, STORE_CHECK_MS));
  }
  return false;
}

import { releaseHoldsOfSilentNodes } from '../billing/model-holds.js';
import type { AppContext } from '../context.js';
import { failRunWithoutJob } from '../runs/run-ending.js';
import { recoverLostRun } from '../runs/run-resume.js';
import { acquireLease, recordHeartbeat, runsOfSilentNodes, unownedRunsSince } from './cluster.store.js';

/** How often a node of a cluster says it is alive and tries for the sweeping lease. */
export const CLUSTER_TICK_MS = 5_000;
const SWEEP_LEASE = 'sweeps';

/**
 * One beat of a cluster node: it says it is alive; then, if it holds (or can take) the
 * sweeping lease, it hands on (or ends) the runs of nodes that went silent, lets go of the
 * credits they held, and runs `sweeps` (work done once for the whole cluster). The lease
 * outlives two beats, so a holder that dies hands it on soon after. Returns how many lost
 * runs were handed on or ended, or null without the lease.
 */
export async function clusterTick(
  ctx: AppContext,
  sweeps: () => Promise<void>,
  /** The runs the last tick found lost from the queue (the caller keeps it from tick to tick). */
  unqueuedBefore: Set<string>,
): Promise<{ lostRuns: number } | null> {
  const now = ctx.clock.now();
  await recordHeartbeat(ctx.db, ctx.config.nodeId, now.toISOString());
  const held = await acquireLease(ctx.db, {
    name: SWEEP_LEASE,
    holder: ctx.config.nodeId,
    nowIso: now.toISOString(),
    expiresIso: new Date(now.getTime() + 2 * CLUSTER_TICK_MS).toISOString(),
  });
  if (!held) return null;
  const cutoff = new Date(now.getTime() - ctx.config.nodeTimeoutMs).toISOString();
  const lost = await runsOfSilentNodes(ctx.db, ctx.config.nodeId, cutoff);
  for (const run of lost) await recoverLostRun(ctx, run.execution_id);
  // After the hand-ons, which let go of their runs' holds themselves: what is left is a silent
  // node's other holds (a thread's turn, a run it failed), which would stay until they expire.
  const heldCalls = await releaseHoldsOfSilentNodes(ctx, cutoff);
  if (heldCalls > 0) ctx.log.warn({ heldCalls }, 'let go of credits held for model calls of silent nodes');
  // A hand-on lets go of its run a moment before it queues it again (longer while the
  // database keeps dropping connections): a run is taken for lost from the queue only when
  // two ticks in a row find it so.
  const unqueued = await runsLostFromQueue(ctx, cutoff);
  const confirmed = unqueued.filter((run) => unqueuedBefore.has(run.execution_id));
  unqueuedBefore.clear();
  for (const run of unqueued) unqueuedBefore.add(run.execution_id);
  for (const run of confirmed) {
    await failRunWithoutJob(ctx, { executionId: run.execution_id, workspaceId: run.workspace_id });
  }
  await sweeps();
  return { lostRuns: lost.length + confirmed.length };
}

/**
 * Runs claimed a while ago that no worker took and whose job is not in the queue: a Redis
 * that keeps nothing on disk was restarted, say. They would otherwise stay working forever.
 */
async function runsLostFromQueue(ctx: AppContext, cutoffIso: string) {
  if (!ctx.runQueue) return [];
  const waiting = await unownedRunsSince(ctx.db, cutoffIso);
  if (waiting.length === 0) return [];
  const queued = await ctx.runQueue.queuedExecutions();
  // Read after the queue: a run taken in between has an owner now and is left alone.
  const stillUnowned = new Set((await unownedRunsSince(ctx.db, cutoffIso)).map((run) => run.execution_id));
  return waiting.filter((run) => !queued.has(run.execution_id) && stillUnowned.has(run.execution_id));
}

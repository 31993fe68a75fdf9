import { failPendingArtifactsOf } from '../artifacts/artifacts.store.js';
import { releaseRunHolds } from '../billing/model-holds.js';
import type { AppContext } from '../context.js';
import { retryOnConnectionLoss } from '../db/connection-loss.js';
import type { QueuedRun } from '../ports/runs.js';
import { type RunOwner, releaseLostRun } from './executions.store.js';
import { filesTracked, noteResumed, resumesOf } from './run-journal.js';

/**
 * How often one run may be handed on. A run whose skill brings down every worker it lands on
 * would otherwise go round the cluster for ever; a database failing over costs an attempt or
 * two.
 */
export const MAX_RESUMES = 5;

/**
 * Hands a run whose attempt was lost (its worker died, or lost its database mid-step) to the
 * queue again, for a worker to go on from its journal (issue 30). False when it may not be
 * (handed on MAX_RESUMES times already, or its files outgrew checkpoints): the caller ends it. True, doing nothing more, when
 * another node already did, or the run has ended.
 */
export async function handOnRun(ctx: AppContext, run: Omit<QueuedRun, 'resumes'>, lostOwner: RunOwner): Promise<boolean> {
  const { runQueue } = ctx;
  const key = { executionId: run.executionId, runStart: run.startSequence };
  const resumes = await retryOnConnectionLoss(() => resumesOf(ctx, key));
  if (!runQueue || resumes >= MAX_RESUMES || !(await retryOnConnectionLoss(() => filesTracked(ctx, key)))) return false;
  // Let go of, noted and cleared in one transaction: between letting go and queueing again the
  // run is in no worker's hands and in no queue, which the cluster's sweep takes, seen twice,
  // for a run lost from the queue. Written one by one, each retried apart while the database
  // kept dropping connections, that gap once outlasted two sweeps and failed a healthy run.
  const released = await retryOnConnectionLoss(() =>
    ctx.db.transaction().execute(async (trx) => {
      if (!(await releaseLostRun(trx, run.executionId, lostOwner))) return false;
      await noteResumed(trx, key, ctx.clock.now().toISOString());
      // What the lost attempt was writing is not the run's result: the next attempt writes its own.
      await failPendingArtifactsOf(trx, run.executionId);
      // Nor are the credits it held for a call: left held, they would leave the next attempt
      // too little for its own next call (a balance under two holds stopped it limit_reached).
      await releaseRunHolds(trx, run.executionId);
      return true;
    }),
  );
  if (!released) return true;
  ctx.log.warn(
    { executionId: run.executionId, lostOwner: lostOwner.node, resumes: resumes + 1 },
    'handed on a run whose attempt was lost',
  );
  await runQueue.enqueue({ ...run, resumes: resumes + 1 });
  return true;
}

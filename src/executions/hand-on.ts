import { failPendingArtifactsOf } from '../artifacts/artifacts.store.js';
import type { AppContext } from '../context.js';
import { retryOnConnectionLoss } from '../db/connection-loss.js';
import { filesTracked, noteResumed, resumesOf } from '../journal/run-journal.js';
import { type RunOwner, releaseLostRun } from './executions.store.js';
import type { QueuedRun } from './run-queue.js';

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
  if (!(await retryOnConnectionLoss(() => releaseLostRun(ctx.db, run.executionId, lostOwner)))) return true;
  ctx.log.warn(
    { executionId: run.executionId, lostOwner: lostOwner.node, resumes: resumes + 1 },
    'handed on a run whose attempt was lost',
  );
  await retryOnConnectionLoss(() => noteResumed(ctx, key));
  // What the lost attempt was writing is not the run's result: the next attempt writes its own.
  await retryOnConnectionLoss(() => failPendingArtifactsOf(ctx.db, run.executionId));
  await runQueue.enqueue({ ...run, resumes: resumes + 1 });
  return true;
}

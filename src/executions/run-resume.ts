import { failPendingArtifactsOf } from '../artifacts/artifacts.store.js';
import type { AppContext } from '../context.js';
import { noteResumed, resumesOf } from '../journal/run-journal.js';
import { findSkill } from '../skills/workspace-skills.js';
import { decodeFrame } from './event-codec.js';
import { findExecution, latestRunStart, releaseLostRun } from './executions.store.js';
import { failRunOfLostNode } from './runner.js';

/**
 * How often one run may be handed on. A run whose skill brings down every worker it lands on
 * would otherwise go round the cluster for ever.
 */
export const MAX_RESUMES = 3;

/** The text of a stored user.message frame. */
function textOf(frame: string): string | undefined {
  const event = decodeFrame(frame);
  return event.type === 'user.message' ? event.payload.content.map((block) => block.text).join('') : undefined;
}

/**
 * A run whose worker was lost (it stopped renewing its job, or its node went silent). An
 * agent run, or a script skill that says it is safe to restart, is handed to the queue again,
 * for another worker to go on from its journal (issue 30); any other run, or one handed on
 * MAX_RESUMES times already, is ended as failed. Nothing happens to a run that has ended or
 * that another node has already handed on.
 */
export async function recoverLostRun(ctx: AppContext, executionId: string): Promise<'resumed' | 'failed' | 'gone'> {
  const execution = await findExecution(ctx.db, executionId);
  const lostOwner = execution?.owner_node;
  if (execution?.status !== 'working' || !lostOwner) return 'gone';
  const target = { executionId, workspaceId: execution.workspace_id };
  const start = await latestRunStart(ctx.db, executionId);
  const text = start && textOf(start.frame);
  const key = start && { executionId, runStart: start.sequence };
  const skill = await findSkill(ctx, execution.workspace_id, execution.skill_slug).catch(() => undefined);
  const resumable = skill?.runtime === 'agent' || skill?.restartable === true;
  const resumes = key ? await resumesOf(ctx, key) : 0;
  if (!ctx.runQueue || !key || text === undefined || !resumable || resumes >= MAX_RESUMES) {
    await failRunOfLostNode(ctx, target);
    return 'failed';
  }
  if (!(await releaseLostRun(ctx.db, executionId, lostOwner))) return 'gone';
  ctx.log.warn({ executionId, lostOwner, resumes: resumes + 1 }, 'handed a run whose worker was lost to another worker');
  await noteResumed(ctx, key);
  // What the lost attempt was writing is not this run's result: the next attempt writes its own.
  await failPendingArtifactsOf(ctx.db, executionId);
  try {
    await ctx.runQueue.enqueue({
      ...target,
      skillSlug: execution.skill_slug,
      text,
      startSequence: key.runStart,
      resumes: resumes + 1,
    });
  } catch (error) {
    ctx.log.error({ err: error, executionId }, 'a run whose worker was lost could not be queued again');
    await failRunOfLostNode(ctx, target);
    return 'failed';
  }
  return 'resumed';
}

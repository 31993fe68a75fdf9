import type { AppContext } from '../context.js';
import { findSkill } from '../skills/workspace-skills.js';
import { decodeFrame } from './event-codec.js';
import { findExecution, latestRunStart } from './executions.store.js';
import { handOnRun } from './hand-on.js';
import { failRunOfLostNode } from './run-ending.js';
import { resumesOf } from './run-journal.js';

/** The text of a stored user.message frame. */
function textOf(frame: string): string | undefined {
  const event = decodeFrame(frame);
  return event.type === 'user.message' ? event.payload.content.map((block) => block.text).join('') : undefined;
}

/** Which attempt at a run was lost: its run start, and how often the run had been handed on before it. */
export interface LostAttempt {
  runStart: number;
  resumes: number;
}

/**
 * A run whose worker was lost (it stopped renewing its job, or its node went silent). An
 * agent run, or a script skill that says it is safe to restart, is handed to the queue again,
 * for another worker to go on from its journal (issue 30); any other run, or one handed on
 * MAX_RESUMES times already, is ended as failed. Nothing happens to a run that has ended or
 * that another node has already handed on.
 *
 * `lost`: the attempt whose job stalled. When the run has been handed on since (the cluster's
 * tick saw the node go silent first), the owner read here is the later attempt's, perhaps one
 * still starting on this very node, and handing that on again would leave two attempts of
 * one run going side by side, each charging its calls. The hand-on count is read after the
 * owner: a hand-on is counted before its new attempt can take the run, so an owner that is
 * the later attempt's always comes with a count past the stalled one's.
 */
export async function recoverLostRun(
  ctx: AppContext,
  executionId: string,
  lost?: LostAttempt,
): Promise<'resumed' | 'failed' | 'gone'> {
  const execution = await findExecution(ctx.db, executionId);
  if (execution?.status !== 'working' || !execution.owner_node) return 'gone';
  const lostOwner = { node: execution.owner_node, attempt: execution.owner_attempt };
  const target = { executionId, workspaceId: execution.workspace_id };
  const start = await latestRunStart(ctx.db, executionId);
  if (
    lost &&
    (start?.sequence !== lost.runStart || (await resumesOf(ctx, { executionId, runStart: lost.runStart })) > lost.resumes)
  ) {
    return 'gone';
  }
  const text = start && textOf(start.frame);
  const skill = await findSkill(ctx, execution.workspace_id, execution.skill_slug).catch(() => undefined);
  const resumable = skill?.runtime === 'agent' || skill?.restartable === true;
  if (resumable && start && text !== undefined) {
    const run = { ...target, skillSlug: execution.skill_slug, text, startSequence: start.sequence };
    const handedOn = await handOnRun(ctx, run, lostOwner).catch((error: unknown) => {
      ctx.log.error({ err: error, executionId }, 'a run whose worker was lost could not be queued again');
      return false;
    });
    if (handedOn) return 'resumed';
  }
  await failRunOfLostNode(ctx, target);
  return 'failed';
}

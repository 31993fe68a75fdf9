import type { AppContext } from '../context.js';
import { findSkill } from '../skills/workspace-skills.js';
import { decodeFrame } from './event-codec.js';
import { findExecution, latestRunStart } from './executions.store.js';
import { handOnRun } from './hand-on.js';
import { failRunOfLostNode } from './run-ending.js';

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

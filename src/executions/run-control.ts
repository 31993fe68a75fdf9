import { requireCanExecute } from '../billing/charges.js';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import type { ExecutionStatus } from '../db/tables.js';
import { Conflict, ExecutionRunning } from '../errors.js';
import type { Caller } from '../identity/callers.js';
import { findSkill } from '../skills/workspace-skills.js';
import type { ExecutionEvent } from './bus.js';
import { invalidate, signalExecution } from './control-messages.js';
import { announce, recordEvents, textContent } from './events.js';
import { appendEvents, type StoredEvent } from './events.store.js';
import { createExecution, executionOf, requireInputWithinLimit } from './executions.js';
import { findExecution } from './executions.store.js';
import { finishRun, launchRun, type RunTarget } from './runner.js';

const BUSY = 'An execution is already running in this workspace';

/** Thrown inside the claiming transaction to roll it back when the execution was not idle. */
class NotIdle extends Error {}

/**
 * Starts a run of an idle execution with `text`: the claim (idle to working), the echoed
 * user.message and session.status_running are stored together. A second working execution
 * in the workspace is refused by the database's one-working index.
 */
export async function startRun(ctx: AppContext, caller: Caller, executionId: string, text: string): Promise<ExecutionEvent[]> {
  const execution = await executionOf(ctx, caller, executionId);
  requireInputWithinLimit(ctx, text);
  if (execution.status === 'completed' || execution.status === 'failed') {
    throw new Conflict(`This execution has ${execution.status}; rerun it to run again`);
  }
  if (execution.status === 'working') throw new ExecutionRunning(BUSY);
  const skill = await findSkill(ctx, execution.workspace_id, execution.skill_slug);
  await requireCanExecute(ctx, caller, skill?.price ?? 0);

  const nowIso = ctx.clock.now().toISOString();
  let stored: StoredEvent[];
  try {
    stored = await ctx.db.transaction().execute(async (trx) => {
      const claimed = await trx
        .updateTable('executions')
        .set({ status: 'working', started_at: nowIso, completed_at: null, stop_reason: null })
        .where('execution_id', '=', executionId)
        .where('status', '=', 'idle')
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) !== 1) throw new NotIdle();
      return appendEvents(
        trx,
        executionId,
        [
          { type: 'user.message', payload: textContent(text) },
          { type: 'session.status_running', payload: {} },
        ],
        nowIso,
      );
    });
  } catch (error) {
    if (isUniqueViolation(error) || error instanceof NotIdle) throw new ExecutionRunning(BUSY);
    throw error;
  }
  announce(ctx, executionId, stored);
  signalExecution(ctx, execution.workspace_id, 'execution-started', executionId, 'working');
  invalidate(ctx, execution.workspace_id, ['executions']);
  await launchRun(ctx, { executionId, workspaceId: execution.workspace_id }, skill, text);
  return stored.map(({ event }) => event);
}

/** Stops a working run, here or (if this process lost it) by closing it in the store. */
async function stopRun(ctx: AppContext, target: RunTarget): Promise<boolean> {
  const { executionId } = target;
  const active = ctx.runs.get(executionId);
  if (active) {
    active.stop();
    await active.settled;
    return true;
  }
  await finishRun(ctx, target, { kind: 'stopped' }, '', 0);
  return false;
}

export async function interruptRun(ctx: AppContext, caller: Caller, executionId: string): Promise<ExecutionEvent[]> {
  const execution = await executionOf(ctx, caller, executionId);
  if (execution.status !== 'working') throw new Conflict(`This execution is not running (it is ${execution.status})`);
  const events = await recordEvents(ctx, executionId, [{ type: 'user.interrupt', payload: {} }]);
  await stopRun(ctx, { executionId, workspaceId: execution.workspace_id });
  return events;
}

export interface CancelResult {
  success: boolean;
  message: string;
  processKilled: boolean;
  actualStatus: ExecutionStatus;
}

export async function cancelRun(ctx: AppContext, caller: Caller, executionId: string): Promise<CancelResult> {
  const execution = await executionOf(ctx, caller, executionId);
  if (execution.status !== 'working') {
    return {
      success: false,
      message: `The execution is not running (it is ${execution.status})`,
      processKilled: false,
      actualStatus: execution.status,
    };
  }
  const processKilled = await stopRun(ctx, { executionId, workspaceId: execution.workspace_id });
  const after = await findExecution(ctx.db, executionId);
  return { success: true, message: 'The run was stopped', processKilled, actualStatus: after?.status ?? 'idle' };
}

/** A new execution of a completed one's skill with new input, started at once. */
export async function rerunExecution(ctx: AppContext, caller: Caller, executionId: string, input: string) {
  const parent = await executionOf(ctx, caller, executionId);
  if (parent.status !== 'completed') throw new Conflict(`Only a completed execution can be rerun (this one is ${parent.status})`);
  requireInputWithinLimit(ctx, input);
  const busy = await ctx.db
    .selectFrom('executions')
    .select('execution_id')
    .where('workspace_id', '=', caller.workspaceId)
    .where('status', '=', 'working')
    .executeTakeFirst();
  if (busy) throw new ExecutionRunning(BUSY);
  const child = await createExecution(ctx, caller, {
    skillSlug: parent.skill_slug,
    input,
    source: parent.source,
    interface: parent.interface,
    parentExecutionId: parent.execution_id,
  });
  await startRun(ctx, caller, child.execution_id, input);
  return {
    executionId: child.execution_id,
    parentExecutionId: parent.execution_id,
    skillName: child.skill_name,
    status: 'started' as const,
    message: 'Rerun started',
  };
}

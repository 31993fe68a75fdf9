import type { AppContext } from '../context.js';
import type { Caller } from '../ports/callers.js';
import { createExecution, type NewExecution } from './executions.js';
import { type ExecutionRow, findExecution } from './executions.store.js';
import { requireNoRunGoing, requireNotDraining, startRun } from './run-control.js';

/**
 * One call's create and start (POST /runs): refused up front while the workspace runs
 * another, so a refusal leaves no idle execution behind. With an Idempotency-Key the check
 * waits for the create, whose retry answers with the first execution however it stands.
 * `follow` is called between the create and the start (to subscribe to its events).
 */
export async function createAndStart(
  ctx: AppContext,
  caller: Caller,
  request: NewExecution,
  follow: (executionId: string) => void = () => {},
): Promise<ExecutionRow> {
  requireNotDraining(ctx);
  if (request.idempotencyKey === undefined) await requireNoRunGoing(ctx, caller.workspaceId);
  const execution = await createExecution(ctx, caller, request);
  follow(execution.execution_id);
  return startCreated(ctx, caller, execution);
}

/**
 * Starts a just-created execution with the input it was created with, so what runs is what
 * the history shows. An execution that already started (an Idempotency-Key's retry) is
 * answered as it stands.
 */
export async function startCreated(ctx: AppContext, caller: Caller, execution: ExecutionRow): Promise<ExecutionRow> {
  if (execution.status !== 'idle' || execution.started_at !== null) return execution;
  await startRun(ctx, caller, execution.execution_id, execution.input_text);
  return (await findExecution(ctx.db, execution.execution_id)) ?? execution;
}

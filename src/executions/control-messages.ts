import type { AppContext } from '../context.js';
import type { ExecutionStatus } from '../db/tables.js';

export type ExecutionSignal = 'execution-started' | 'execution-progress' | 'execution-completed' | 'execution-failed';

/** What the control-plane WebSocket carries, as bare JSON objects. */
export type ControlMessage =
  | { type: ExecutionSignal; executionId: string; workspaceId: string; status: ExecutionStatus; at: string }
  | { type: 'cache-invalidate'; keys: string[]; workspaceId: string; at: string };

export function signalExecution(
  ctx: AppContext,
  workspaceId: string,
  type: ExecutionSignal,
  executionId: string,
  status: ExecutionStatus,
): void {
  ctx.control.publish(workspaceId, { type, executionId, workspaceId, status, at: ctx.clock.now().toISOString() });
}

/** Tells a workspace's clients that their cached copies of these collections are stale. */
export function invalidate(ctx: AppContext, workspaceId: string, keys: string[]): void {
  ctx.control.publish(workspaceId, { type: 'cache-invalidate', keys, workspaceId, at: ctx.clock.now().toISOString() });
}

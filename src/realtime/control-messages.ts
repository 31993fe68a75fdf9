import type { Clock } from '../clock.js';
import type { ExecutionStatus } from '../db/tables-runs.js';
import type { Channels, ControlMessage, ExecutionSignal } from '../ports/channels.js';
import type { RunLife } from '../ports/run-life.js';

/** What publishing a control message needs: the channel and the time it is stamped with. */
type Publisher = { control: Channels<ControlMessage>; clock: Clock };

export function signalExecution(
  ctx: Publisher,
  workspaceId: string,
  type: ExecutionSignal,
  executionId: string,
  status: ExecutionStatus,
): void {
  ctx.control.publish(workspaceId, { type, executionId, workspaceId, status, at: ctx.clock.now().toISOString() });
}

/** Tells a workspace's clients that their cached copies of these collections are stale. */
export function invalidate(ctx: Publisher, workspaceId: string, keys: string[]): void {
  ctx.control.publish(workspaceId, { type: 'cache-invalidate', keys, workspaceId, at: ctx.clock.now().toISOString() });
}

/** The channel of one node of a cluster: requests for the runs it executes. No socket hears it. */
export function nodeChannel(nodeId: string): string {
  return `node:${nodeId}`;
}

/** The channel of one credential (beside the workspace channels, which are named by id alone). */
export function credentialChannel(credentialId: string): string {
  return `credential:${credentialId}`;
}

/**
 * Announces that a credential was revoked (a key deleted, a session logged out), so every
 * control-plane socket opened with it closes. It goes over the control channel rather
 * than to this process's sockets directly, so that on a cluster, where that channel is
 * shared, the node holding the socket hears it.
 */
export function announceRevocation(ctx: Publisher, credentialId: string): void {
  ctx.control.publish(credentialChannel(credentialId), {
    type: 'credential-revoked',
    credentialId,
    at: ctx.clock.now().toISOString(),
  });
}

/** What a run's end may have changed besides its execution: the artifact it wrote, the credits it spent. */
const STALE_AFTER_A_RUN = ['executions', 'artifacts', 'balance', 'transactions'];

/** The control plane's part in a run's life: the workspace's clients hear each start and end. */
export function signalRunLife(life: RunLife, ctx: Publisher): void {
  life.on('run.started', ({ executionId, workspaceId }) => {
    signalExecution(ctx, workspaceId, 'execution-started', executionId, 'working');
    invalidate(ctx, workspaceId, ['executions']);
  });
  life.on('run.completed', ({ executionId, workspaceId }) => {
    signalExecution(ctx, workspaceId, 'execution-completed', executionId, 'completed');
    invalidate(ctx, workspaceId, STALE_AFTER_A_RUN);
  });
  life.on('run.failed', ({ executionId, workspaceId }) => {
    signalExecution(ctx, workspaceId, 'execution-failed', executionId, 'failed');
    invalidate(ctx, workspaceId, STALE_AFTER_A_RUN);
  });
  // A stopped run's execution is idle, to be resumed: progress, not an end, to its clients.
  life.on('run.stopped', ({ executionId, workspaceId }) => {
    signalExecution(ctx, workspaceId, 'execution-progress', executionId, 'idle');
    invalidate(ctx, workspaceId, STALE_AFTER_A_RUN);
  });
}

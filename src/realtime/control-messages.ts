import type { Clock } from '../clock.js';
import type { ExecutionStatus } from '../db/tables-runs.js';
import type { Channels, ControlMessage, ExecutionSignal } from '../ports/channels.js';

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

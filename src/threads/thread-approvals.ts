import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import { Conflict, NotFound } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import type { ControlMessage } from '../ports/channels.js';
import type { ThreadRef } from '../ports/thread-records.js';
import { existingThread, recordInThread } from './threads.js';
import { approvalOf, decidePendingApproval, insertApproval, type ThreadApprovalRow } from './threads.store.js';

/** How often a waiting turn reads its approval again, in case the announcement of the answer was lost. */
const RECHECK_MS = 10_000;

/** An approval's control channel: its answer, for whichever node's turn waits on it. */
export function approvalChannel(approvalId: string): string {
  return `thread-approval:${approvalId}`;
}

export interface DecidedApproval {
  approvalId: string;
  threadId: string;
  tool: string;
  input: Record<string, unknown>;
  status: ThreadApprovalRow['status'];
  createdAt: string;
  decidedAt: string | null;
}

function decidedOf(row: ThreadApprovalRow, threadId: string): DecidedApproval {
  return {
    approvalId: row.id,
    threadId,
    tool: row.tool,
    input: JSON.parse(row.input) as Record<string, unknown>,
    status: row.status,
    createdAt: row.created_at,
    decidedAt: row.decided_at,
  };
}

/**
 * Whether the caller may answer this approval: the person whose turn asked for it (who pays
 * for what it starts), or an owner or admin of the workspace. Threads are the workspace's,
 * so any member may see the approval's id; seeing it is not being asked.
 */
function mayAnswer(caller: Caller, row: ThreadApprovalRow): boolean {
  return row.requested_by === caller.userId || caller.role === 'owner' || caller.role === 'admin';
}

/**
 * Answers an approval the caller's thread asked for. Anyone else is told it does not exist,
 * as for an unknown id. The row is the truth (the update that takes it out of `pending` is
 * the check, so of two answers one wins and the other gets 409); the announcement only
 * wakes the waiting turn sooner, on whichever node it runs.
 */
export async function decideApproval(
  ctx: AppContext,
  caller: Caller,
  place: { agentId: string; threadId: string; approvalId: string },
  approved: boolean,
): Promise<DecidedApproval> {
  const thread = await existingThread(ctx, caller, place.agentId, place.threadId);
  const row = await approvalOf(ctx.db, thread.id, place.approvalId);
  if (!row || !mayAnswer(caller, row)) throw new NotFound('Approval not found');
  const nowIso = ctx.clock.now().toISOString();
  const decided = await decidePendingApproval(ctx.db, row.id, {
    status: approved ? 'approved' : 'denied',
    decidedAt: nowIso,
    decidedBy: caller.userId,
  });
  if (!decided) throw new Conflict(`This approval was already answered (${row.status})`);
  ctx.control.publish(approvalChannel(row.id), { type: 'thread-approval-decided', approvalId: row.id, approved, at: nowIso });
  return decidedOf(decided, thread.thread_id);
}

/**
 * The sink's requestApproval: stores the pending approval, tells the thread, and waits for
 * the answer. It listens on the approval's channel and reads the row once subscribed (an
 * answer may come before the subscription) and then now and again (a lost announcement),
 * so an answer given on any node wakes it. Rejects with the signal's reason on abort.
 */
export async function requestThreadApproval(
  ctx: AppContext,
  thread: Pick<ThreadRef, 'id' | 'userId'>,
  request: { tool: string; label: string; input: Record<string, unknown> },
  signal: AbortSignal,
): Promise<boolean> {
  signal.throwIfAborted();
  const threadRowId = thread.id;
  const approvalId = randomUUID();
  await insertApproval(ctx.db, {
    id: approvalId,
    thread_row_id: threadRowId,
    tool: request.tool,
    input: JSON.stringify(request.input),
    status: 'pending',
    created_at: ctx.clock.now().toISOString(),
    decided_at: null,
    decided_by: null,
    requested_by: thread.userId,
  });
  const channel = approvalChannel(approvalId);
  return new Promise<boolean>((resolve, reject) => {
    let settled = false;
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      ctx.control.unsubscribe(channel, onMessage);
      stopRechecks();
      signal.removeEventListener('abort', onAbort);
      outcome();
    };
    const recheck = () => {
      approvalOf(ctx.db, threadRowId, approvalId)
        .then((row) => {
          if (row && row.status !== 'pending') finish(() => resolve(row.status === 'approved'));
        })
        .catch((error: unknown) => ctx.log.warn({ err: error, approvalId }, 'reading a thread approval failed'));
    };
    const onMessage = (message: ControlMessage) => {
      if (message.type === 'thread-approval-decided') finish(() => resolve(message.approved));
    };
    const onAbort = () => finish(() => reject(signal.reason));
    const stopRechecks = ctx.clock.every(RECHECK_MS, recheck);
    ctx.control.subscribe(channel, onMessage);
    signal.addEventListener('abort', onAbort, { once: true });
    // Announced only once subscribed: an answer cannot come before the request is seen.
    const subscribed = ctx.control.ready ? ctx.control.ready() : Promise.resolve();
    subscribed
      .then(() => recordInThread(ctx, threadRowId, [{ type: 'tool.approval_request', approvalId, ...request }]))
      .then(recheck)
      .catch((error: unknown) => finish(() => reject(error)));
  });
}

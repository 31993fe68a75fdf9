import type { AppContext } from '../context.js';
import { NotFound } from '../errors.js';
import type { Caller } from '../identity/callers.js';
import { findThreadAgent, listThreadAgents, type ThreadAgentInfo } from './thread-agent.js';
import { threadChannel } from './thread-frames.js';
import type { ThreadRecord, ThreadRef } from './thread-records.js';
import { appendThreadRecords, findThread, type StoredThreadFrame, type ThreadRow, upsertThread } from './threads.store.js';

/** The agents a caller's threads can talk to. */
export function agentsOf(ctx: AppContext, caller: Caller): Promise<ThreadAgentInfo[]> {
  return listThreadAgents(ctx, caller.workspaceId);
}

/**
 * The checks every thread route makes first: the agent is one of the caller's workspace,
 * and `resourceId` (when the route takes one) is that workspace. Another workspace's
 * resource answers 404, as a thread that does not exist would: a caller learns nothing
 * about workspaces it is not in.
 */
export async function requireThreadAccess(
  ctx: AppContext,
  caller: Caller,
  agentId: string,
  resourceId: string = caller.workspaceId,
): Promise<ThreadAgentInfo> {
  if (resourceId !== caller.workspaceId) throw new NotFound('Thread not found');
  const agent = await findThreadAgent(ctx, caller.workspaceId, agentId);
  if (!agent) throw new NotFound(`No agent ${agentId} in this workspace`);
  return agent;
}

/** The caller's thread of this name, made on first use: a client may subscribe before it sends anything. */
export function openThread(ctx: AppContext, caller: Caller, agentId: string, threadId: string): Promise<ThreadRow> {
  return upsertThread(ctx.db, { workspaceId: caller.workspaceId, agentId, threadId }, ctx.clock.now().toISOString());
}

/** The caller's existing thread of this name, or 404. */
export async function existingThread(ctx: AppContext, caller: Caller, agentId: string, threadId: string): Promise<ThreadRow> {
  const thread = await findThread(ctx.db, { workspaceId: caller.workspaceId, agentId, threadId });
  if (!thread) throw new NotFound('Thread not found');
  return thread;
}

export function threadRefOf(thread: ThreadRow, userId: string): ThreadRef {
  return { id: thread.id, workspaceId: thread.workspace_id, agentId: thread.agent_id, threadId: thread.thread_id, userId };
}

/**
 * Stores records in the thread (one transaction), then announces them on the thread's
 * channel, where subscribers on every node hear them. Only ever announced after commit, so
 * a subscriber that fills a gap from the store finds what it was told about.
 */
export async function recordInThread(
  ctx: Pick<AppContext, 'db' | 'clock' | 'bus'>,
  threadRowId: string,
  records: ThreadRecord[],
  through?: number,
): Promise<StoredThreadFrame[]> {
  const nowIso = ctx.clock.now().toISOString();
  const stored = await ctx.db.transaction().execute((trx) => appendThreadRecords(trx, threadRowId, records, nowIso, through));
  const channel = threadChannel(threadRowId);
  for (const one of stored) ctx.bus.publish(channel, { sequence: one.sequence, type: one.record.type, frame: one.frame });
  return stored;
}

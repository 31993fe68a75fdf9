import type { AppContext } from '../context.js';
import { NotFound } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import type { ThreadRecord, ThreadRef } from '../ports/thread-records.js';
import { findThreadAgent, listThreadAgents, type ThreadAgentInfo } from './thread-agent.js';
import { decodeThreadFrame, threadChannel } from './thread-frames.js';
import {
  appendThreadRecords,
  findThread,
  type StoredThreadFrame,
  type ThreadRow,
  threadPage,
  upsertThread,
} from './threads.store.js';

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

/** How much of a thread's first message names it in a list. */
const TITLE_LENGTH = 80;

export interface ThreadSummary {
  threadId: string;
  agentId: string;
  /** The start of the thread's first message, on one line. */
  title: string;
  createdAt: string;
  updatedAt: string;
}

function titleOf(firstMessage: string | null): string {
  if (firstMessage === null) return 'A conversation';
  const { record } = decodeThreadFrame(firstMessage);
  const text = record.type === 'user.message' ? record.text.replace(/\s+/g, ' ').trim() : '';
  if (text === '') return 'A conversation';
  return text.length > TITLE_LENGTH ? `${text.slice(0, TITLE_LENGTH - 1).trimEnd()}…` : text;
}

/** A page of the caller's workspace's threads with an agent, the most recently active first. */
export async function listThreads(
  ctx: AppContext,
  caller: Caller,
  agentId: string,
  page: { limit: number; offset: number },
): Promise<{ items: ThreadSummary[]; total: number }> {
  await requireThreadAccess(ctx, caller, agentId);
  const { rows, total } = await threadPage(ctx.db, { workspaceId: caller.workspaceId, agentId }, page.limit, page.offset);
  const items = rows.map((row) => ({
    threadId: row.thread_id,
    agentId,
    title: titleOf(row.first_message),
    createdAt: row.created_at,
    updatedAt: row.updated_at ?? row.created_at,
  }));
  return { items, total };
}

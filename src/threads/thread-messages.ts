import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { AppContext } from '../context.js';
import { InvalidInput } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { THREAD_STREAM_HEADERS, ThreadStream } from './thread-stream.js';
import { wakeThread } from './thread-turns.js';
import { openThread, recordInThread, requireThreadAccess } from './threads.js';
import { lastThreadSequence, type ThreadRow } from './threads.store.js';
import { claimThreadTurn, dropThreadTurnClaim } from './turn-claims.js';

/**
 * Stores a person's message in the thread and asks for a turn; returns the stored sequence.
 * `claimed`: the turn claim made for this message (claimThreadTurn), taken back if the
 * message cannot be stored.
 */
async function postToThread(ctx: AppContext, caller: Caller, thread: ThreadRow, text: string, claimed: boolean) {
  const messageId = randomUUID();
  let stored: Awaited<ReturnType<typeof recordInThread>>[number] | undefined;
  try {
    [stored] = await recordInThread(ctx, thread.id, [{ type: 'user.message', messageId, text }]);
  } catch (error) {
    if (claimed) await dropThreadTurnClaim(ctx, caller, thread).catch(() => undefined);
    throw error;
  }
  wakeThread(ctx, thread, caller.userId);
  return { messageId, sequence: stored?.sequence ?? 0 };
}

/** POST send-message: the message is stored and answered in the background (or after the turn running now). */
export async function sendThreadMessage(
  ctx: AppContext,
  caller: Caller,
  agentId: string,
  body: { resourceId: string; threadId: string; message: string },
): Promise<{ messageId: string; threadId: string }> {
  await requireThreadAccess(ctx, caller, agentId, body.resourceId);
  const thread = await openThread(ctx, caller, agentId, body.threadId);
  const claimed = await claimThreadTurn(ctx, caller, thread);
  const { messageId } = await postToThread(ctx, caller, thread, body.message, claimed);
  return { messageId, threadId: thread.thread_id };
}

/** Where a subscription resumes: after Last-Event-ID, which must be a record this thread has. */
export async function threadToSubscribe(
  ctx: AppContext,
  caller: Caller,
  agentId: string,
  body: { resourceId: string; threadId: string },
  lastEventId: string | undefined,
): Promise<{ thread: ThreadRow; after: number }> {
  await requireThreadAccess(ctx, caller, agentId, body.resourceId);
  const thread = await openThread(ctx, caller, agentId, body.threadId);
  const after = lastEventId === undefined || lastEventId === '' ? 0 : Number(lastEventId);
  const last = await lastThreadSequence(ctx.db, thread.id);
  if (after > last) throw new InvalidInput(`Last-Event-ID ${after} is beyond the last record of this thread (${last})`);
  return { thread, after };
}

/** Sends the stream's headers (with `headers`, the rate limiter's) and a first comment, before anything else is awaited. */
function startStream(response: ServerResponse, headers: Record<string, string>): void {
  response.writeHead(200, { ...headers, ...THREAD_STREAM_HEADERS });
  response.flushHeaders();
}

/** Serves a subscription found and checked by threadToSubscribe: replay, then live records, until the client leaves. */
export async function serveThreadSubscription(
  ctx: AppContext,
  response: ServerResponse,
  headers: Record<string, string>,
  subscription: { thread: ThreadRow; after: number },
): Promise<void> {
  startStream(response, headers);
  response.write(': connected\n\n');
  await new ThreadStream(ctx, response, subscription.thread.id, subscription.after).open();
}

/**
 * The thread a chat message goes to (the one named, or a new one), with the turn that will
 * answer it claimed: refused (429) before the stream starts when the person has their most
 * turns under way.
 */
export async function threadToChat(
  ctx: AppContext,
  caller: Caller,
  agentId: string,
  threadId: string | undefined,
): Promise<{ thread: ThreadRow; claimed: boolean }> {
  await requireThreadAccess(ctx, caller, agentId);
  const thread = await openThread(ctx, caller, agentId, threadId ?? randomUUID());
  return { thread, claimed: await claimThreadTurn(ctx, caller, thread) };
}

/**
 * POST chat: the thread's records from this message on, ending after the turn that
 * answered it. The first frame, with no `id:` (it is not a record), names the thread, so a
 * client that sent no threadId learns the one made for it.
 */
export async function serveChat(
  ctx: AppContext,
  caller: Caller,
  response: ServerResponse,
  headers: Record<string, string>,
  chat: { thread: ThreadRow; claimed: boolean },
  message: string,
): Promise<void> {
  const { thread, claimed } = chat;
  startStream(response, { ...headers, 'x-thread-id': thread.thread_id });
  response.write(`data: ${JSON.stringify({ type: 'thread', threadId: thread.thread_id, agentId: thread.agent_id })}\n\n`);
  const stream = new ThreadStream(ctx, response, thread.id, await lastThreadSequence(ctx.db, thread.id));
  await stream.open();
  if (stream.closed) {
    // The client left before its message was stored: no turn will answer it.
    if (claimed) await dropThreadTurnClaim(ctx, caller, thread);
    return;
  }
  const { sequence } = await postToThread(ctx, caller, thread, message, claimed);
  stream.endAfterTurnThrough(sequence);
}

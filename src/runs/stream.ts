import type { ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { Tables } from '../db/tables.js';
import { InvalidInput, NotFound } from '../errors.js';
import type { AnnouncedEvent } from '../ports/channels.js';
import { OrderedStream } from '../realtime/ordered-stream.js';
import { frameChunksAfter } from './event-blocks.store.js';
import { executionProgress } from './events.store.js';

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * One subscriber of one execution's events (the ordering and gap filling are the
 * OrderedStream's). A finished (completed or failed) execution's stream ends after its last
 * event. Any other stream ends after a live session.status_idle with nothing newer behind
 * it; a replayed one (an interrupted run, before a resume) does not end it, so a client that
 * opens the stream and then posts the next user.message sees that run.
 */
class EventStream extends OrderedStream<AppContext> {
  /** An execution's events are announced on a channel named by its id. */
  private get executionId(): string {
    return this.channel;
  }

  async run(): Promise<void> {
    await this.subscribe();
    // Read once subscribed: every event stored after this point is announced to this stream,
    // so the replay goes up to here and the queue takes over from the next sequence.
    const progress = await executionProgress(this.deps.db, this.executionId);
    await this.replay(progress?.last_sequence ?? 0);
    if (!progress || progress.status === 'completed' || progress.status === 'failed') {
      this.close();
      return;
    }
    this.goLive();
  }

  keepAlive(): void {
    this.response.write(': keep-alive\n\n');
  }

  protected get logFields(): Record<string, string> {
    return { executionId: this.executionId };
  }

  /** Then ends the stream the way a live closing event would have. */
  protected async catchUpFromStore(): Promise<void> {
    const progress = await executionProgress(this.deps.db, this.executionId);
    if (!progress || progress.last_sequence <= this.lastSent) return;
    await this.replay(progress.last_sequence);
    if (progress.status !== 'working' && !this.hasQueuedAfter(this.lastSent)) this.close();
  }

  /** Stored events go out a chunk of frames per write. */
  protected async replay(through: number): Promise<void> {
    for await (const chunk of frameChunksAfter(this.deps.db, this.executionId, this.lastSent, through)) {
      if (this.closed) return;
      this.writeStored(chunk.text, chunk.lastSequence);
    }
  }

  protected afterLive(event: AnnouncedEvent): void {
    if (event.type === 'session.status_idle' && !this.hasQueuedAfter(event.sequence)) this.close();
  }
}

/**
 * Checks that an execution exists and that `afterSequence` is a place its stream can resume
 * from. Events are stored before anyone is sent them, so a sequence beyond the last stored
 * one was never sent: whatever the execution's state, such a resume point is a mistake, and
 * answering it with a stream would leave the client waiting on keep-alives.
 */
export async function requireResumePoint(db: Kysely<Tables>, executionId: string, afterSequence: number): Promise<void> {
  const progress = await executionProgress(db, executionId);
  if (!progress) throw new NotFound('Execution not found');
  if (afterSequence > progress.last_sequence) {
    throw new InvalidInput(
      `Sequence ${afterSequence} (lastSeq or Last-Event-ID) is beyond the last event of this execution (${progress.last_sequence})`,
    );
  }
}

/**
 * Answers with the event stream of an execution already found and authorised; `headers`
 * (the rate-limit headers) go out beside the stream's own.
 */
export async function serveEventStream(
  ctx: AppContext,
  response: ServerResponse,
  headers: Record<string, string>,
  executionId: string,
  afterSequence: number,
): Promise<void> {
  response.writeHead(200, { ...headers, ...STREAM_HEADERS });
  // Headers go out now, not with the first event: a client waits for them before it
  // posts the user.message that produces that event. Sent on their own, the header text
  // Node keeps for the response's lifetime is flattened into one string as it is written,
  // rather than staying a tree of a few dozen concatenated pieces per open stream.
  response.flushHeaders();
  response.write(': connected\n\n');
  await new EventStream(ctx, response, executionId, afterSequence).run();
}

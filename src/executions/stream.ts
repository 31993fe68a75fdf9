import type { ServerResponse } from 'node:http';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { Tables } from '../db/tables.js';
import { InvalidInput, NotFound } from '../errors.js';
import type { AnnouncedEvent } from './bus.js';
import { frameChunksAfter } from './event-blocks.store.js';
import { executionProgress } from './events.store.js';
import type { OpenStream } from './open-streams.js';

const STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * One subscriber of one execution's events, served as server-sent events: everything stored
 * after `afterSequence`, then live events, with no gap and no duplicate at the hand-over.
 * Live events that arrive during the replay wait in a queue; each is written only if it is
 * the next sequence, and a gap (a missed announcement) is filled from the store.
 *
 * When it ends: a finished (completed or failed) execution's stream ends after its last
 * event. Any other stream ends after a live session.status_idle with nothing newer behind
 * it; a replayed one (an interrupted run, before a resume) does not end it, so a client that
 * opens the stream and then posts the next user.message sees that run.
 *
 * Tens of thousands of these can sit idle at once, so each is one object with its methods
 * on the prototype rather than a handful of closures.
 */
class EventStream implements OpenStream {
  #lastSent: number;
  #closed = false;
  #busy = true;
  readonly #queue: AnnouncedEvent[] = [];

  constructor(
    private readonly ctx: AppContext,
    private readonly response: ServerResponse,
    private readonly executionId: string,
    afterSequence: number,
  ) {
    this.#lastSent = afterSequence;
  }

  async run(): Promise<void> {
    this.ctx.bus.subscribe(this.executionId, this.#receive);
    this.ctx.streams.add(this);
    this.response.on('close', this.close);
    if (this.ctx.bus.ready) await this.ctx.bus.ready();

    // Read once subscribed: every event stored after this point is announced to this stream,
    // so the replay goes up to here and the queue takes over from the next sequence.
    const progress = await executionProgress(this.ctx.db, this.executionId);
    await this.#replay(progress?.last_sequence ?? 0);
    if (!progress || progress.status === 'completed' || progress.status === 'failed') {
      this.close();
      return;
    }
    this.#busy = false;
    this.#drain();
  }

  readonly close = (): void => {
    if (this.#closed) return;
    this.#closed = true;
    this.ctx.bus.unsubscribe(this.executionId, this.#receive);
    this.ctx.streams.delete(this);
    this.response.end();
  };

  closeConnection(): void {
    this.close();
    // Written after the response's last chunk, so the client still sees a complete stream.
    this.response.socket?.end();
  }

  keepAlive(): void {
    this.response.write(': keep-alive\n\n');
  }

  /**
   * Replays whatever the store holds beyond what was sent, then ends the stream the way a
   * live closing event would have. Runs in the drain's place, so order is kept.
   */
  catchUp(): void {
    if (this.#closed || this.#busy) return;
    this.#busy = true;
    this.#catchUpFromStore()
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        this.#busy = false;
        this.#drain();
      });
  }

  async #catchUpFromStore(): Promise<void> {
    const progress = await executionProgress(this.ctx.db, this.executionId);
    if (!progress || progress.last_sequence <= this.#lastSent) return;
    await this.#replay(progress.last_sequence);
    if (progress.status !== 'working' && this.#queue.every((next) => next.sequence <= this.#lastSent)) this.close();
  }

  readonly #receive = (event: AnnouncedEvent): void => {
    this.#queue.push(event);
    this.#drain();
  };

  #fail(error: unknown): void {
    this.ctx.log.error({ err: error, executionId: this.executionId }, 'event stream failed');
    this.close();
  }

  /** Writes stored events after lastSent, a chunk per write, up to `through`. */
  async #replay(through: number): Promise<void> {
    for await (const chunk of frameChunksAfter(this.ctx.db, this.executionId, this.#lastSent, through)) {
      if (this.#closed) return;
      this.response.write(chunk.text);
      this.#lastSent = chunk.lastSequence;
    }
  }

  /**
   * Writes queued events in order. Synchronous unless an event is ahead of the next
   * sequence: with thousands of subscribers, each announcement reaches every one of them in
   * a single pass, with no promise per subscriber.
   */
  #drain(): void {
    while (!this.#busy && !this.#closed && this.#queue.length > 0) {
      const event = this.#queue[0] as AnnouncedEvent;
      if (event.sequence > this.#lastSent + 1) {
        this.#fillGap(event.sequence - 1).catch((error: unknown) => this.#fail(error));
        return;
      }
      this.#queue.shift();
      if (event.sequence <= this.#lastSent) continue;
      this.response.write(event.frame);
      this.#lastSent = event.sequence;
      if (this.#endsStream(event)) this.close();
    }
  }

  /** A missed announcement: the events before the queued one come from the store. */
  async #fillGap(through: number): Promise<void> {
    this.#busy = true;
    try {
      await this.#replay(through);
    } finally {
      this.#busy = false;
    }
    // Events are stored before they are announced, so this is a broken store; the client
    // reconnects with Last-Event-ID rather than receive a stream with a hole in it.
    if (!this.#closed && this.#lastSent < through) throw new Error(`announced events up to ${through} are not stored`);
    this.#drain();
  }

  #endsStream(event: AnnouncedEvent): boolean {
    return event.type === 'session.status_idle' && !this.#queue.some((next) => next.sequence > event.sequence);
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

import type { ServerResponse } from 'node:http';
import type { AppContext } from '../context.js';
import type { AnnouncedEvent } from '../ports/channels.js';
import { OrderedStream } from '../realtime/ordered-stream.js';
import { decodeThreadFrame, threadChannel } from './thread-frames.js';
import { lastThreadSequence, threadFramesAfter } from './threads.store.js';

/** SPEC, Limits: a comment every 25 s keeps an idle thread stream open through proxies. */
export const THREAD_HEARTBEAT_MS = 25_000;
const REPLAY_PAGE = 500;

export const THREAD_STREAM_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
};

/**
 * A turn end's `through`, read from its frame. Every subscriber of a thread is handed the
 * same frame in one pass, so the last one read is kept: one parse per record, not per subscriber.
 */
let lastTurnEnd: { frame: string; through: number } | undefined;
function throughOf(frame: string): number {
  if (lastTurnEnd?.frame !== frame) lastTurnEnd = { frame, through: decodeThreadFrame(frame).through ?? 0 };
  return lastTurnEnd.through;
}

/**
 * One subscriber of one thread (the ordering and gap filling are the OrderedStream's). A
 * subscription stays open until the client leaves or the server shuts down; a chat stream
 * also ends after the turn that answered its message (`endAfterTurnThrough`).
 */
export class ThreadStream extends OrderedStream<AppContext> {
  /** A chat stream ends at the first agent.turn_end of a turn that saw this sequence. */
  #endThrough: number | undefined;
  /** The furthest `through` of a turn_end sent, in case the end is set after its turn_end went out. */
  #sentThrough = -1;

  constructor(
    ctx: AppContext,
    response: ServerResponse,
    readonly threadRowId: string,
    afterSequence: number,
  ) {
    super(ctx, response, threadChannel(threadRowId), afterSequence);
  }

  /** Subscribes, then replays what the store holds; live records follow. Resolves once the hand-over is done. */
  async open(): Promise<void> {
    this.deps.threadHeartbeats.add(this);
    await this.subscribe();
    // Read once subscribed: everything stored after this is announced to this stream.
    await this.replay(await lastThreadSequence(this.deps.db, this.threadRowId));
    this.goLive();
  }

  /** Makes this a chat stream: it ends after the turn_end of a turn whose history reached `sequence`. */
  endAfterTurnThrough(sequence: number): void {
    this.#endThrough = sequence;
    if (this.#sentThrough >= sequence) this.close();
  }

  heartbeat(): void {
    if (!this.closed) this.response.write(': heartbeat\n\n');
  }

  /** The registry's keep-alive: nothing, since this stream's own heartbeat (above) keeps it alive on the 25 s of the spec. */
  keepAlive(): void {}

  protected override onClose(): void {
    this.deps.threadHeartbeats.delete(this);
  }

  protected get logFields(): Record<string, string> {
    return { thread: this.threadRowId };
  }

  protected async catchUpFromStore(): Promise<void> {
    await this.replay(await lastThreadSequence(this.deps.db, this.threadRowId));
  }

  /** Writes stored records after lastSent up to `through`, a page at a time. */
  protected async replay(through: number): Promise<void> {
    while (!this.closed && this.lastSent < through) {
      const rows = await threadFramesAfter(this.deps.db, this.threadRowId, this.lastSent, through, REPLAY_PAGE);
      if (rows.length === 0) return;
      for (const row of rows) {
        if (this.closed) return;
        this.writeStored(row.frame, row.sequence);
        this.#noteTurnEnd(row.type, row.frame);
      }
    }
  }

  protected afterLive(event: AnnouncedEvent): void {
    this.#noteTurnEnd(event.type, event.frame);
  }

  #noteTurnEnd(type: string, frame: string): void {
    if (type !== 'agent.turn_end') return;
    this.#sentThrough = Math.max(this.#sentThrough, throughOf(frame));
    if (this.#endThrough !== undefined && this.#sentThrough >= this.#endThrough) this.close();
  }
}

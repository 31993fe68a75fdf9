import type { ServerResponse } from 'node:http';
import type { AppContext } from '../context.js';
import type { AnnouncedEvent } from '../executions/bus.js';
import type { OpenStream } from '../executions/open-streams.js';
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

/** One timer per node for every open thread stream's heartbeat, on the context's clock, running only while one is open. */
class Heartbeats {
  readonly #streams = new Set<ThreadStream>();
  #stop: (() => void) | undefined;

  constructor(private readonly ctx: AppContext) {}

  add(stream: ThreadStream): void {
    this.#streams.add(stream);
    this.#stop ??= this.ctx.clock.every(THREAD_HEARTBEAT_MS, () => {
      for (const open of this.#streams) open.heartbeat();
    });
  }

  delete(stream: ThreadStream): void {
    this.#streams.delete(stream);
    if (this.#streams.size === 0 && this.#stop) {
      this.#stop();
      this.#stop = undefined;
    }
  }
}

/**
 * A turn end's `through`, read from its frame. Every subscriber of a thread is handed the
 * same frame in one pass, so the last one read is kept: one parse per record, not per subscriber.
 */
let lastTurnEnd: { frame: string; through: number } | undefined;
function throughOf(frame: string): number {
  if (lastTurnEnd?.frame !== frame) lastTurnEnd = { frame, through: decodeThreadFrame(frame).through ?? 0 };
  return lastTurnEnd.through;
}

const heartbeatsByContext = new WeakMap<AppContext, Heartbeats>();

function heartbeatsOf(ctx: AppContext): Heartbeats {
  let heartbeats = heartbeatsByContext.get(ctx);
  if (!heartbeats) {
    heartbeats = new Heartbeats(ctx);
    heartbeatsByContext.set(ctx, heartbeats);
  }
  return heartbeats;
}

/**
 * One subscriber of one thread: every record stored after `afterSequence`, then live ones,
 * with no gap and no duplicate at the hand-over (the approach of the execution stream:
 * subscribe, wait for the bus, read the store, queue what is announced meanwhile, fill a
 * gap from the store). A subscription stays open until the client leaves or the server
 * shuts down; a chat stream also ends after the turn that answered its message
 * (`endAfterTurnThrough`).
 */
export class ThreadStream implements OpenStream {
  #lastSent: number;
  #closed = false;
  #busy = true;
  /** A chat stream ends at the first agent.turn_end of a turn that saw this sequence. */
  #endThrough: number | undefined;
  /** The furthest `through` of a turn_end sent, in case the end is set after its turn_end went out. */
  #sentThrough = -1;
  readonly #queue: AnnouncedEvent[] = [];
  readonly #channel: string;

  constructor(
    private readonly ctx: AppContext,
    private readonly response: ServerResponse,
    readonly threadRowId: string,
    afterSequence: number,
  ) {
    this.#lastSent = afterSequence;
    this.#channel = threadChannel(threadRowId);
  }

  /** Subscribes, then replays what the store holds; live records follow. Resolves once the hand-over is done. */
  async open(): Promise<void> {
    this.ctx.bus.subscribe(this.#channel, this.#receive);
    this.ctx.streams.add(this);
    heartbeatsOf(this.ctx).add(this);
    this.response.on('close', this.close);
    if (this.ctx.bus.ready) await this.ctx.bus.ready();
    // Read once subscribed: everything stored after this is announced to this stream.
    await this.#replay(await lastThreadSequence(this.ctx.db, this.threadRowId));
    this.#busy = false;
    this.#drain();
  }

  /** Makes this a chat stream: it ends after the turn_end of a turn whose history reached `sequence`. */
  endAfterTurnThrough(sequence: number): void {
    this.#endThrough = sequence;
    if (this.#sentThrough >= sequence) this.close();
  }

  get closed(): boolean {
    return this.#closed;
  }

  readonly close = (): void => {
    if (this.#closed) return;
    this.#closed = true;
    this.ctx.bus.unsubscribe(this.#channel, this.#receive);
    this.ctx.streams.delete(this);
    heartbeatsOf(this.ctx).delete(this);
    this.response.end();
  };

  closeConnection(): void {
    this.close();
    this.response.socket?.end();
  }

  heartbeat(): void {
    if (!this.#closed) this.response.write(': heartbeat\n\n');
  }

  /** The registry's keep-alive: nothing, since this stream's own heartbeat (above) keeps it alive on the 25 s of the spec. */
  keepAlive(): void {}

  /** After the bus was cut off: whatever the store holds beyond what was sent, in the drain's place. */
  catchUp(): void {
    if (this.#closed || this.#busy) return;
    this.#busy = true;
    lastThreadSequence(this.ctx.db, this.threadRowId)
      .then((last) => this.#replay(last))
      .catch((error: unknown) => this.#fail(error))
      .finally(() => {
        this.#busy = false;
        this.#drain();
      });
  }

  readonly #receive = (event: AnnouncedEvent): void => {
    this.#queue.push(event);
    this.#drain();
  };

  #fail(error: unknown): void {
    this.ctx.log.error({ err: error, thread: this.threadRowId }, 'thread stream failed');
    this.close();
  }

  #write(sequence: number, type: string, frame: string): void {
    this.response.write(frame);
    this.#lastSent = sequence;
    if (type !== 'agent.turn_end') return;
    this.#sentThrough = Math.max(this.#sentThrough, throughOf(frame));
    if (this.#endThrough !== undefined && this.#sentThrough >= this.#endThrough) this.close();
  }

  /** Writes stored records after lastSent up to `through`, a page at a time. */
  async #replay(through: number): Promise<void> {
    while (!this.#closed && this.#lastSent < through) {
      const rows = await threadFramesAfter(this.ctx.db, this.threadRowId, this.#lastSent, through, REPLAY_PAGE);
      if (rows.length === 0) return;
      for (const row of rows) {
        if (this.#closed) return;
        this.#write(row.sequence, row.type, row.frame);
      }
    }
  }

  /** Writes queued records in order; a record ahead of the next sequence means a missed announcement, filled from the store. */
  #drain(): void {
    while (!this.#busy && !this.#closed && this.#queue.length > 0) {
      const event = this.#queue[0] as AnnouncedEvent;
      if (event.sequence > this.#lastSent + 1) {
        this.#fillGap(event.sequence - 1).catch((error: unknown) => this.#fail(error));
        return;
      }
      this.#queue.shift();
      if (event.sequence <= this.#lastSent) continue;
      this.#write(event.sequence, event.type, event.frame);
    }
  }

  async #fillGap(through: number): Promise<void> {
    this.#busy = true;
    try {
      await this.#replay(through);
    } finally {
      this.#busy = false;
    }
    // Records are stored before they are announced, so this is a broken store: the client
    // reconnects with Last-Event-ID rather than get a stream with a hole in it.
    if (!this.#closed && this.#lastSent < through) throw new Error(`announced thread records up to ${through} are not stored`);
    this.#drain();
  }
}

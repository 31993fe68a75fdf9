import type { ServerResponse } from 'node:http';
import type { AppContext } from '../context.js';
import type { AnnouncedEvent } from '../ports/channels.js';
import type { OpenStream } from '../ports/streams.js';

/** What every stream uses; a subclass may ask for more of the context (its store, say). */
export type StreamDeps = Pick<AppContext, 'bus' | 'streams' | 'log'>;

/**
 * The ordered, gap-filling writer under every server-sent event stream (an execution's
 * events, a thread's records): everything stored after a sequence, then live
 * announcements, with no gap and no duplicate at the hand-over.
 *
 * The stream subscribes first and reads the store after, so every item stored later is
 * announced to it. Announcements that arrive while the store is read wait in a queue; each
 * is written only if it is the next sequence, and a gap (a missed announcement) is filled
 * from the store. Items are stored before they are announced, so a gap the store cannot
 * fill is a broken store: the stream ends, and the client resumes with Last-Event-ID rather
 * than read a stream with a hole in it.
 *
 * Tens of thousands of these can sit idle at once, so each is one object with its methods
 * on the prototype rather than a handful of closures.
 */
export abstract class OrderedStream<Deps extends StreamDeps = StreamDeps> implements OpenStream {
  #lastSent: number;
  #closed = false;
  /** While set, the store is being read and announcements only queue. */
  #busy = true;
  readonly #queue: AnnouncedEvent[] = [];

  constructor(
    protected readonly deps: Deps,
    protected readonly response: ServerResponse,
    /** The bus channel its announcements come on. */
    protected readonly channel: string,
    afterSequence: number,
  ) {
    this.#lastSent = afterSequence;
  }

  /** Writes what the store holds after `lastSent`, up to `through`, through `writeStored`. */
  protected abstract replay(through: number): Promise<void>;

  /** After the bus was cut off: replays whatever the store holds beyond what was sent. */
  protected abstract catchUpFromStore(): Promise<void>;

  /** Decides, after a live announcement was written, whether the stream is over. */
  protected abstract afterLive(event: AnnouncedEvent): void;

  /** What a log line about this stream names it by. */
  protected abstract get logFields(): Record<string, string>;

  abstract keepAlive(): void;

  get closed(): boolean {
    return this.#closed;
  }

  protected get lastSent(): number {
    return this.#lastSent;
  }

  /** Subscribes and registers the stream; the caller replays, then calls `goLive`. */
  protected async subscribe(): Promise<void> {
    this.deps.bus.subscribe(this.channel, this.#receive);
    this.deps.streams.add(this);
    this.response.on('close', this.close);
    if (this.deps.bus.ready) await this.deps.bus.ready();
  }

  /** The replay is done: queued and later announcements are written from here on. */
  protected goLive(): void {
    this.#busy = false;
    this.#drain();
  }

  /** Writes stored text that runs up to `lastSequence` (one item, or a chunk of several). */
  protected writeStored(text: string, lastSequence: number): void {
    this.response.write(text);
    this.#lastSent = lastSequence;
  }

  /** Whether an announcement newer than `sequence` waits: a closing event with more behind it does not close. */
  protected hasQueuedAfter(sequence: number): boolean {
    return this.#queue.some((next) => next.sequence > sequence);
  }

  /** What a subclass lets go of when the stream closes. */
  protected onClose(): void {}

  readonly close = (): void => {
    if (this.#closed) return;
    this.#closed = true;
    this.deps.bus.unsubscribe(this.channel, this.#receive);
    this.deps.streams.delete(this);
    this.onClose();
    this.response.end();
  };

  closeConnection(): void {
    this.close();
    // Written after the response's last chunk, so the client still sees a complete stream.
    this.response.socket?.end();
  }

  /** Runs in the drain's place, so order is kept. */
  catchUp(): void {
    if (this.#closed || this.#busy) return;
    this.#busy = true;
    this.catchUpFromStore()
      .catch((error: unknown) => this.fail(error))
      .finally(() => {
        this.#busy = false;
        this.#drain();
      });
  }

  protected fail(error: unknown): void {
    this.deps.log.error({ err: error, ...this.logFields }, 'event stream failed');
    this.close();
  }

  readonly #receive = (event: AnnouncedEvent): void => {
    this.#queue.push(event);
    this.#drain();
  };

  /**
   * Writes queued announcements in order. Synchronous unless one is ahead of the next
   * sequence: with thousands of subscribers, each announcement reaches every one of them in
   * a single pass, with no promise per subscriber.
   */
  #drain(): void {
    while (!this.#busy && !this.#closed && this.#queue.length > 0) {
      const event = this.#queue[0] as AnnouncedEvent;
      if (event.sequence > this.#lastSent + 1) {
        this.#fillGap(event.sequence - 1).catch((error: unknown) => this.fail(error));
        return;
      }
      this.#queue.shift();
      if (event.sequence <= this.#lastSent) continue;
      this.response.write(event.frame);
      this.#lastSent = event.sequence;
      this.afterLive(event);
    }
  }

  async #fillGap(through: number): Promise<void> {
    this.#busy = true;
    try {
      await this.replay(through);
    } finally {
      this.#busy = false;
    }
    if (!this.#closed && this.#lastSent < through) throw new Error(`announced items up to ${through} are not stored`);
    this.#drain();
  }
}

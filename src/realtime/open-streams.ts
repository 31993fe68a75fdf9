import type { OpenStream, StreamRegistry } from '../ports/streams.js';

/**
 * Every open event stream of this process. One timer sends all their keep-alive comments,
 * instead of a timer each: with tens of thousands of idle subscribers, per-connection
 * timers cost memory and wake-ups. The timer runs only while some stream is open. At
 * shutdown the streams are ended, so their clients reconnect (to another node, or to this
 * one once it is back) instead of holding the shutdown open.
 */
export class OpenStreams implements StreamRegistry {
  readonly #streams = new Set<OpenStream>();
  #timer: NodeJS.Timeout | undefined;
  #shuttingDown = false;

  constructor(private readonly keepAliveMs: number) {}

  add(stream: OpenStream): void {
    if (this.#shuttingDown) {
      stream.closeConnection();
      return;
    }
    this.#streams.add(stream);
    if (!this.#timer) {
      this.#timer = setInterval(() => {
        for (const open of this.#streams) open.keepAlive();
      }, this.keepAliveMs);
      this.#timer.unref();
    }
  }

  delete(stream: OpenStream): void {
    this.#streams.delete(stream);
    if (this.#streams.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }

  /** After the bus reconnects: announcements sent while it was away reached nobody here. */
  catchUpAll(): void {
    for (const stream of this.#streams) stream.catchUp();
  }

  /** Ends every open stream, and any opened from now on. */
  closeAll(): void {
    this.#shuttingDown = true;
    for (const stream of this.#streams) stream.closeConnection();
  }
}

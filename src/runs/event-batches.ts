import type { NewEvent } from './event-codec.js';

/** Events per write at most: a bound on one statement's parameters and one transaction's length. */
const MAX_BATCH = 256;

interface Waiting {
  event: NewEvent;
  /** What must be done before the event is stored. */
  after: Promise<unknown> | undefined;
  stored: () => void;
  failed: (error: unknown) => void;
}

/**
 * Stores a run's events in the order they are handed in, one write at a time. A write starts
 * once the code that handed in its first event has gone on to its next await, and takes
 * every event handed in by then: a tool turn's events (its model call's end, then the
 * tool's start), which the agent loop hands in one after the other, share one transaction
 * and one push to the run's streams. Events that arrive while a write is under way go in the
 * next one. Nothing waits for a timer. Each `add` settles when the write holding its event
 * commits; `after` holds back the write that holds its event until it is done (and fails it if it fails).
 */
export class BatchedEventWriter {
  readonly #waiting: Waiting[] = [];
  #writing = false;

  constructor(private readonly write: (events: NewEvent[]) => Promise<void>) {}

  add(event: NewEvent, after?: Promise<unknown>): Promise<void> {
    // Its failure is read when its batch is written; until then it is not unhandled.
    after?.catch(() => undefined);
    return new Promise((stored, failed) => {
      this.#waiting.push({ event, after, stored, failed });
      if (!this.#writing) void this.#drain();
    });
  }

  async #drain(): Promise<void> {
    this.#writing = true;
    while (this.#waiting.length > 0) {
      // Every event handed in by the same stretch of code joins the batch.
      await Promise.resolve();
      const batch = this.#waiting.splice(0, MAX_BATCH);
      try {
        const before = batch.flatMap((waiting) => (waiting.after ? [waiting.after] : []));
        // Only when there is something to wait for.
        if (before.length > 0) await Promise.all(before);
        await this.write(batch.map((waiting) => waiting.event));
        for (const waiting of batch) waiting.stored();
      } catch (error) {
        for (const waiting of batch) waiting.failed(error);
      }
    }
    this.#writing = false;
  }
}

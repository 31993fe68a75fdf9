import type { ClearingQueue } from '../ports/runs.js';

/** Where a clearing that failed is told. */
interface ClearingLog {
  warn(fields: Record<string, unknown>, message: string): void;
}

/**
 * Clearing away what a run no longer needs (a sandbox's group and mounts, a run's scratch
 * folder) without holding up the run's end: each starts at once and is tracked, and the part
 * that owns them waits for them as it closes. A failed one is logged; what it left, the next
 * start of the server clears (leftover groups, mounts and scratch folders are swept then).
 */
export class Clearings implements ClearingQueue {
  readonly #going = new Set<Promise<void>>();

  constructor(private readonly log: ClearingLog) {}

  /** Starts clearing `what` (as the log names it) away. */
  start(what: string, clear: () => Promise<void>): void {
    const going: Promise<void> = clear()
      .catch((error: unknown) => this.log.warn({ err: error }, `${what} could not be cleared away; the next start clears it`))
      .finally(() => this.#going.delete(going));
    this.#going.add(going);
  }

  /** Resolves once every clearing started so far has ended. */
  async settled(): Promise<void> {
    await Promise.all(this.#going);
  }
}

/** The one source of "now". Tests hand in a ManualClock and move time instead of sleeping. */
export interface Clock {
  now(): Date;
  /** now() as milliseconds since the epoch, without making a Date: every request reads it. */
  nowMs(): number;
  /**
   * Calls `fn` every `ms` until the returned function is called. On the system clock this is
   * a timer that never holds the process open; on a ManualClock it fires as time is moved.
   */
  every(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => new Date(),
  nowMs: Date.now,
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

interface ManualTimer {
  ms: number;
  dueAt: number;
  fn: () => void;
}

export class ManualClock implements Clock {
  #ms: number;
  readonly #timers = new Set<ManualTimer>();

  constructor(start: Date | string = '2026-01-01T00:00:00.000Z') {
    this.#ms = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#ms);
  }

  nowMs(): number {
    return this.#ms;
  }

  every(ms: number, fn: () => void): () => void {
    if (!(ms > 0)) throw new RangeError('An interval must be positive');
    const timer: ManualTimer = { ms, dueAt: this.#ms + ms, fn };
    this.#timers.add(timer);
    return () => this.#timers.delete(timer);
  }

  /** Moves time on, firing each timer as often as it falls due, in time order, with now() at its due time. */
  advance(ms: number): void {
    const target = this.#ms + ms;
    for (;;) {
      let next: ManualTimer | undefined;
      for (const timer of this.#timers) if (timer.dueAt <= target && (!next || timer.dueAt < next.dueAt)) next = timer;
      if (!next) break;
      this.#ms = next.dueAt;
      next.dueAt += next.ms;
      next.fn();
    }
    this.#ms = target;
  }
}

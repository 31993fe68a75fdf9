import type { ActiveRun, RunRegistry } from '../ports/runs.js';

/**
 * How long a stop that came for a run still being started here waits for it. As long as the
 * node that asked waits for the run to stop (remote-stop.ts) before it closes the run itself.
 */
const STOP_AHEAD_MS = 10_000;

/** The runs this process is executing, by execution id: what cancel and interrupt reach. */
export class ActiveRuns implements RunRegistry {
  readonly #runs = new Map<string, ActiveRun>();
  /** Stops asked for runs this node took but has not added yet: each stops the moment it is added. */
  readonly #stopsAhead = new Map<string, NodeJS.Timeout>();
  /** Runs being started: counted against the limit before they are added. */
  #starting = 0;
  /** Set when the process is told to stop: no new run starts here from then on. */
  #draining = false;
  /** Told of each run as it is added (the metrics count runs this way). */

  get draining(): boolean {
    return this.#draining;
  }

  get size(): number {
    return this.#runs.size;
  }

  /** Refuses every run from now on (run-control checks this before claiming one). */
  drain(): void {
    this.#draining = true;
  }

  /**
   * Waits until no run is in progress here, or `ms` pass (real time: it waits for
   * processes), or `cut` aborts. True when every run ended by itself.
   */
  async settleWithin(ms: number, cut?: AbortSignal): Promise<boolean> {
    const deadline = Date.now() + ms;
    const aborted = new Promise<void>((resolve) => {
      if (cut?.aborted) resolve();
      else cut?.addEventListener('abort', () => resolve(), { once: true });
    });
    while (this.#runs.size + this.#starting > 0) {
      const left = deadline - Date.now();
      if (left <= 0 || cut?.aborted) return false;
      // A run being started is not in the map yet: look again shortly rather than miss it.
      const wait = this.#starting > 0 ? Math.min(left, 50) : left;
      let timer: NodeJS.Timeout | undefined;
      const elapsed = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, wait);
      });
      await Promise.race([Promise.allSettled([...this.#runs.values()].map((run) => run.settled)), elapsed, aborted]);
      clearTimeout(timer);
    }
    return true;
  }

  /** Takes a place for a run about to start; false when `limit` runs already have one. */
  reserve(limit: number): boolean {
    if (this.#runs.size + this.#starting >= limit) return false;
    this.#starting += 1;
    return true;
  }

  /** Gives back a place taken by reserve, once the run was added or did not start. */
  release(): void {
    this.#starting -= 1;
  }

  add(executionId: string, run: ActiveRun): void {
    this.#runs.set(executionId, run);
    const ahead = this.#stopsAhead.get(executionId);
    if (ahead === undefined) return;
    clearTimeout(ahead);
    this.#stopsAhead.delete(executionId);
    run.stop();
  }

  /**
   * Stops a run now, or as soon as it is added when it is still being started here (its
   * sandbox, its folders) and not in the map yet: the stop waits for it rather than being
   * lost, which left the run going while the asking node closed it in the store. For a stop
   * another node was asked for, and for one of a run this node took from the queue but has
   * not started yet.
   */
  stopWhenAdded(executionId: string): void {
    const run = this.#runs.get(executionId);
    if (run) {
      run.stop();
      return;
    }
    clearTimeout(this.#stopsAhead.get(executionId));
    const forget = setTimeout(() => this.#stopsAhead.delete(executionId), STOP_AHEAD_MS);
    forget.unref();
    this.#stopsAhead.set(executionId, forget);
  }

  get(executionId: string): ActiveRun | undefined {
    return this.#runs.get(executionId);
  }

  delete(executionId: string, run: ActiveRun): void {
    if (this.#runs.get(executionId) === run) this.#runs.delete(executionId);
  }

  /** Stops every run in progress and waits until each has stored its closing events. */
  async stopAll(): Promise<void> {
    const runs = [...this.#runs.values()];
    for (const run of runs) run.stop('shutdown');
    await Promise.allSettled(runs.map((run) => run.settled));
  }
}

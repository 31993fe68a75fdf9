/** A run in progress in this process. */
export interface ActiveRun {
  stop(): void;
  /** Settles once the run's closing events are stored. */
  settled: Promise<void>;
}

/** The runs this process is executing, by execution id: what cancel and interrupt reach. */
export class ActiveRuns {
  readonly #runs = new Map<string, ActiveRun>();
  /** Runs being started: counted against the limit before they are added. */
  #starting = 0;

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
    for (const run of runs) run.stop();
    await Promise.allSettled(runs.map((run) => run.settled));
  }
}

/** A run in progress in this process. */
export interface ActiveRun {
  stop(): void;
  /** Settles once the run's closing events are stored. */
  settled: Promise<void>;
}

/** The runs this process is executing, by execution id: what cancel and interrupt reach. */
export class ActiveRuns {
  readonly #runs = new Map<string, ActiveRun>();

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

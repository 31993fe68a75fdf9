/*
 * What a run is to the parts that start, queue, stop and clear up after runs: the run's
 * target, the queue of a cluster, this node's run registry, and the clearings behind a run.
 */

/** Who stopped a run: a person (an interrupt, a cancel) or this node shutting down. */
export type StopCause = 'person' | 'shutdown';

/** A run in progress in this process. */
export interface ActiveRun {
  /** Stops the run; the first stop's cause is the one its end records. */
  stop(cause?: StopCause): void;
  /** Settles once the run's closing events are stored. */
  settled: Promise<void>;
}

/** The execution a run belongs to, and the workspace whose clients hear about it. */
export interface RunTarget {
  executionId: string;
  workspaceId: string;
}

/** A run claimed in the database (status working, no owner yet) and waiting for a worker. */
export interface QueuedRun extends RunTarget {
  skillSlug: string;
  text: string;
  /** The sequence of the run's user.message: one execution runs again after an interrupt. */
  startSequence: number;
  /** How often the run was handed on after its worker was lost (issue 30); absent on its first attempt. */
  resumes?: number;
}

/**
 * Where runs wait for a worker in a cluster. Run control hands runs to it; the BullMQ
 * implementation (distributed/bull-run-queue.ts) is chosen when the app is composed.
 */
export interface RunQueue {
  enqueue(run: QueuedRun): Promise<void>;
  /** The executions with a job waiting or running. */
  queuedExecutions(): Promise<Set<string>>;
  close(): Promise<void>;
}

/** The runs this process is executing, by execution id: what cancel and interrupt reach (runs/active-runs.ts). */
export interface RunRegistry {
  /** Set once the process is told to stop: no new run starts here from then on. */
  readonly draining: boolean;
  readonly size: number;
  /** Refuses every run from now on (run control checks this before claiming one). */
  drain(): void;
  /** Waits until no run is in progress here, or `ms` pass, or `cut` aborts; true when every run ended by itself. */
  settleWithin(ms: number, cut?: AbortSignal): Promise<boolean>;
  /** Takes a place for a run about to start; false when `limit` runs already have one. */
  reserve(limit: number): boolean;
  /** Gives back a place taken by reserve, once the run was added or did not start. */
  release(): void;
  add(executionId: string, run: ActiveRun): void;
  /** Stops a run now, or as soon as it is added when it is still being started here. */
  stopWhenAdded(executionId: string): void;
  get(executionId: string): ActiveRun | undefined;
  delete(executionId: string, run: ActiveRun): void;
  /** Stops every run in progress and waits until each has stored its closing events. */
  stopAll(): Promise<void>;
}

/** What ended runs leave to clear away, cleared without holding up their ends (sandbox/clearings.ts). */
export interface ClearingQueue {
  /** Starts clearing `what` (as the log names it) away. */
  start(what: string, clear: () => Promise<void>): void;
  /** Resolves once every clearing started so far has ended. */
  settled(): Promise<void>;
}

/**
 * The files a run was given (DESIGN §15), already copied into a folder of the run's own on
 * this host, which the runner removes when the run ends. A runtime shows the folder to the
 * skill read only. `path` is relative to `dir`, with forward slashes.
 */
export interface RunUploads {
  dir: string;
  files: { path: string; size: number; mimeType: string }[];
}

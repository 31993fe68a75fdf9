/**
 * Where runs wait for a worker in a cluster. Run control hands runs to it; the BullMQ
 * implementation (distributed/bull-run-queue.ts) is chosen when the app is composed.
 */

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

export interface RunQueue {
  enqueue(run: QueuedRun): Promise<void>;
  /** The executions with a job waiting or running. */
  queuedExecutions(): Promise<Set<string>>;
  close(): Promise<void>;
}

import { randomUUID } from 'node:crypto';
import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { AppContext } from '../context.js';
import type { QueuedRun, RunQueue } from '../ports/runs.js';
import type { ChannelsLog } from '../realtime/redis-channels.js';
import { takeQueuedRun } from '../runs/executions.store.js';
import { type LostAttempt, recoverLostRun } from '../runs/run-resume.js';
import { launchRun } from '../runs/runner.js';
import { findSkill } from '../skills/workspace-skills.js';

/** The queue's name and BullMQ's key prefix (`skillet:` becomes `skillet:bull`); the metrics read its job counts. */
export const RUN_QUEUE_NAME = 'runs';

/** BullMQ forbids ':' in custom job ids; execution ids are UUIDs, which hold no '_'. */
function jobIdOf(run: QueuedRun): string {
  return `${run.executionId}_${run.startSequence}${run.resumes ? `_${run.resumes}` : ''}`;
}

/** The run and attempt a job id names (see jobIdOf). */
function attemptOfJob(jobId: string): { executionId: string } & LostAttempt {
  const [executionId = '', runStart = '0', resumes = '0'] = jobId.split('_');
  return { executionId, runStart: Number(runStart), resumes: Number(resumes) };
}

export function bullPrefix(redisPrefix: string): string {
  return `${redisPrefix}bull`;
}

/** The producer side, on every node of a cluster (a worker's threads start runs too): a job per run, gone from Redis once the run is done. */
export function bullRunQueue(redisUrl: string, redisPrefix: string, log: ChannelsLog): RunQueue {
  const connection = new Redis(redisUrl, { connectionName: `${redisPrefix}queue`, maxRetriesPerRequest: 3 });
  // Without listeners ioredis and BullMQ print every failed reconnect attempt to the console.
  connection.on('error', (error: Error) => log.warn({ err: error }, 'run queue connection'));
  const queue = new Queue<QueuedRun>(RUN_QUEUE_NAME, { connection, prefix: bullPrefix(redisPrefix) });
  queue.on('error', (error: Error) => log.warn({ err: error }, 'run queue'));
  return {
    async enqueue(run) {
      await queue.add('run', run, { jobId: jobIdOf(run), removeOnComplete: true, removeOnFail: true });
    },
    async queuedExecutions() {
      const jobs = await queue.getJobs(['waiting', 'active', 'prioritized', 'delayed', 'waiting-children']);
      return new Set(jobs.map((job) => job.data.executionId));
    },
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}

/**
 * The consumer side, on workers: takes queued runs, as many at once as RUNS_PER_SERVER, and
 * holds each job until its run has stored its closing events. BullMQ renews the job's lock
 * while the run lasts; a worker that dies stops renewing, and the next stalled-job check on
 * any live worker fails the job (BullMQ's own retry would repeat the run from its start) and
 * hands the run on (run-resume.ts): an agent run goes on from its journal on another worker,
 * any other run ends as failed. The cluster's heartbeat lease is the second net, for when no
 * worker is left to check.
 */
export function startRunWorker(ctx: AppContext, redisUrl: string, redisPrefix: string): { close(): Promise<void>; cut(): void } {
  // Blocking commands wait out outages rather than fail (BullMQ requires this of a worker).
  const connection = new Redis(redisUrl, { connectionName: `${redisPrefix}worker`, maxRetriesPerRequest: null });
  connection.on('error', (error: Error) => ctx.log.warn({ err: error }, 'run queue worker connection'));
  const worker = new Worker<QueuedRun>(RUN_QUEUE_NAME, async (job) => runQueuedJob(ctx, job.data), {
    connection,
    prefix: bullPrefix(redisPrefix),
    concurrency: ctx.config.executions.runsPerServer,
    lockDuration: ctx.config.runStallMs,
    stalledInterval: Math.max(500, Math.floor(ctx.config.runStallMs / 2)),
    maxStalledCount: 0,
  });
  worker.on('stalled', (jobId) => {
    recoverStalledRun(ctx, attemptOfJob(jobId)).catch((error: unknown) =>
      ctx.log.error({ err: error, jobId }, 'a stalled run could not be ended'),
    );
  });
  // A run's own outcome is in its events; what lands here is the queue failing (Redis gone, say).
  worker.on('error', (error) => ctx.log.warn({ err: error }, 'run queue worker'));
  return {
    async close() {
      await worker.close();
      connection.disconnect();
    },
    /**
     * For a close that does not end: BullMQ's waits on its blocking connection, which can
     * hang while that connection reconnects (Redis cut off just before the shutdown).
     */
    cut() {
      void worker.disconnect().catch(() => undefined);
      connection.disconnect();
    },
  };
}

async function runQueuedJob(ctx: AppContext, run: QueuedRun): Promise<void> {
  // Stopped while it waited, or already taken: nothing to do.
  const attempt = { runStart: run.startSequence, resumes: run.resumes ?? 0, id: randomUUID() };
  if (!(await takeQueuedRun(ctx.db, run.executionId, { node: ctx.config.nodeId, attempt: attempt.id }))) return;
  const skill = await findSkill(ctx, run.workspaceId, run.skillSlug);
  await launchRun(ctx, { executionId: run.executionId, workspaceId: run.workspaceId }, skill, run.text, attempt);
  await ctx.runs.get(run.executionId)?.settled;
}

/**
 * A job whose lock lapsed: its run goes on elsewhere, or ends, unless this very process still
 * runs it or the run has been handed on since that job's attempt.
 */
async function recoverStalledRun(ctx: AppContext, stalled: { executionId: string } & LostAttempt): Promise<void> {
  const { executionId, ...attempt } = stalled;
  if (ctx.runs.get(executionId)) return;
  await recoverLostRun(ctx, executionId, attempt);
}

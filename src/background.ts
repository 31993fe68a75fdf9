import { sweepExpiredActivations } from './activation/lifecycle.js';
import { sweepOrphanBlobs } from './artifacts/blob-collection.js';
import { recoverArtifacts } from './artifacts/recovery.js';
import { releaseHoldsOfNode } from './billing/model-holds.js';
import type { AppContext } from './context.js';
import { startRunWorker } from './distributed/bull-run-queue.js';
import { CLUSTER_TICK_MS, clusterTick } from './distributed/cluster.js';
import { sweepExpiredFiles } from './files/files.js';
import { clearUploadLeftovers } from './files/run-uploads.js';
import { sweepExpiredOAuthRecords } from './oauth/sweep.js';
import { drainNode } from './ops/shutdown.js';
import { listenForRunStops } from './runs/remote-stop.js';
import { failAbandonedRuns } from './runs/run-ending.js';
import { sweepCheckpointStores } from './runs/run-journal.js';
import { settlesWithin } from './sandbox/settles-within.js';
import { pruneWebhookLog } from './webhooks/retention.js';

const SWEEP_INTERVAL_MS = 60_000;
const BLOB_SWEEP_INTERVAL_MS = 15 * 60_000;
/** How long the run queue worker may take to close once its runs are stopped. */
const WORKER_CLOSE_MS = 5000;

/** The work a node does beside answering requests, started and stopped in one place. */
export interface Background {
  /**
   * Cleans up what the last shutdown cut off, then starts the webhook dispatcher, the
   * sweeps (on a cluster, the tick whose lease holder sweeps) and, on a worker, the run worker.
   */
  start(): Promise<void>;
  /** The first half of a graceful stop: no new run starts here; runs in progress get `graceMs` to finish. */
  drain(graceMs: number, cut?: AbortSignal): Promise<void>;
  /** Stops everything started, the runs still going included, and closes what the node opened. */
  close(): Promise<void>;
}

export interface BackgroundParts {
  ctx: AppContext;
  redisPrefix: string;
  /** Closed last, after every part that uses them: the run queue, the ops side, the Redis connections. */
  closeLast: (() => Promise<void>)[];
}

export function background({ ctx, redisPrefix, closeLast }: BackgroundParts): Background {
  const { config, log } = ctx;
  let sweeper: NodeJS.Timeout | undefined;
  let stopListening: (() => void) | undefined;
  let runWorker: ReturnType<typeof startRunWorker> | undefined;
  let workerClosed: Promise<void> | undefined;
  // Once: a drain starts closing the worker, and the close then waits for that same close.
  const closeWorker = () => (workerClosed ??= runWorker?.close());

  const sweep = async () => {
    await sweepExpiredActivations(ctx).catch((error: unknown) => log.error({ err: error }, 'activation sweep failed'));
    await sweepExpiredOAuthRecords(ctx).catch((error: unknown) => log.error({ err: error }, 'OAuth sweep failed'));
    await pruneWebhookLog(ctx).catch((error: unknown) => log.error({ err: error }, 'webhook log sweep failed'));
    await sweepExpiredFiles(ctx).catch((error: unknown) => log.error({ err: error }, 'input file sweep failed'));
  };

  /** A cluster: every node beats; the one holding the lease ends lost runs and sweeps. */
  const startClusterTick = async () => {
    let sweptAt = 0;
    let blobsSweptAt = 0;
    const unqueuedBefore = new Set<string>();
    const tick = () =>
      clusterTick(
        ctx,
        async () => {
          if (Date.now() - sweptAt < SWEEP_INTERVAL_MS) return;
          sweptAt = Date.now();
          await sweep();
          // It lists every old blob (a whole bucket, with S3): not every minute.
          if (Date.now() - blobsSweptAt < BLOB_SWEEP_INTERVAL_MS) return;
          blobsSweptAt = Date.now();
          await sweepOrphanBlobs(ctx).catch((error: unknown) => log.error({ err: error }, 'blob sweep failed'));
          await sweepCheckpointStores(ctx).catch((error: unknown) => log.error({ err: error }, 'checkpoint store sweep failed'));
        },
        unqueuedBefore,
      )
        .then((outcome) => outcome?.lostRuns && log.warn({ lostRuns: outcome.lostRuns }, 'ended runs of a silent node'))
        .catch((error: unknown) => log.error({ err: error }, 'cluster tick failed'));
    await tick();
    sweeper = setInterval(tick, CLUSTER_TICK_MS);
  };

  return {
    async start() {
      stopListening = listenForRunStops(ctx);
      const abandoned = await failAbandonedRuns(ctx);
      if (abandoned > 0) log.warn({ abandoned }, 'ended runs cut off by the last shutdown');
      const heldCalls = await releaseHoldsOfNode(ctx);
      if (heldCalls > 0) log.warn({ heldCalls }, 'let go of credits held for model calls cut off by the last shutdown');
      // Deliveries queued before a restart (or by another node) are picked up from here on.
      ctx.webhooks.start();
      ctx.webhooks.kick();
      // First, before the folders they might write to are cleared: sandboxes a server killed outright left running.
      const leftover = await ctx.sandbox.cgroups?.clearLeftovers();
      if (leftover && leftover.removed > 0)
        log.warn(
          { leftoverGroups: leftover.removed, strayProcesses: leftover.stopped },
          'cleared the run groups of a server killed outright',
        );
      await clearUploadLeftovers(ctx);
      const recovered = await recoverArtifacts(ctx);
      if (recovered.failed + recovered.removedBlobs + recovered.unmounted > 0)
        log.warn(recovered, 'cleaned up artifacts cut off by the last shutdown');
      if (config.redisUrl) {
        await startClusterTick();
        if (config.nodeRole !== 'api') runWorker = startRunWorker(ctx, config.redisUrl, redisPrefix);
      } else {
        sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
      }
      sweeper?.unref();
    },

    drain: (graceMs, cut) => drainNode({ runs: ctx.runs, closeWorker, log }, graceMs, cut),

    async close() {
      clearInterval(sweeper);
      stopListening?.();
      // Turns first: a turn's agent may start runs, and each turn ends with its turn_end stored.
      await ctx.threadTurns.stop();
      // The worker stops taking jobs first; its close then waits for the runs stopped here.
      const closing = closeWorker();
      await ctx.runs.stopAll();
      // Its runs are stopped, so the worker has nothing left to wait for: a close that still
      // does not end is stuck on a reconnecting connection, and is cut rather than waited on.
      if (!(await settlesWithin(closing, WORKER_CLOSE_MS))) {
        log.warn('the run queue worker did not close in time: its connections are cut');
        runWorker?.cut();
      }
      // After the runs, which own the sandboxes they took: the pools' are only warm.
      await ctx.computers?.close();
      await ctx.scripts?.close();
      await ctx.clearings.settled();
      // After the runs: their last webhooks are queued by then, and the ones under way finish.
      await ctx.webhooks.close();
      for (const close of closeLast) await close();
    },
  };
}

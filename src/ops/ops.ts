import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Queue } from 'bullmq';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { AppContext } from '../context.js';
import { bullPrefix, RUN_QUEUE_NAME } from '../distributed/bull-run-queue.js';
import type { FrontRouteObserver } from '../http/front-routes.js';
import { AppMetrics } from './metrics.js';
import { ledgerTotals } from './ops.store.js';
import { checkReadiness, type Readiness, readinessChecks } from './readiness.js';
import { MeteredRuns } from './run-metrics.js';

/** The route pattern of the event stream, served ahead of Fastify (the only front route). */
const STREAM_ROUTE = '/executions/:executionId/stream';

/** The operations side of one app: probes, metrics, and what they read. */
export interface Ops {
  metrics: AppMetrics | undefined;
  observeFrontRoute: FrontRouteObserver | undefined;
  readiness(): Promise<Readiness>;
  /** Starts the metrics port (METRICS_PORT), when set. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Builds the operations side before the app (the server factory needs the front-route
 * observer) and swaps in the metered run registry; `app()` is read only at scrape time.
 */
export function createOps(ctx: AppContext, redisPrefix: string, log: FastifyBaseLogger, app: () => FastifyInstance): Ops {
  const { config } = ctx;
  const redisUrl = config.redisUrl;
  // Probes must fail fast: no queueing while disconnected, no retries of a command.
  const probe = redisUrl
    ? new Redis(redisUrl, { connectionName: `${redisPrefix}probe`, enableOfflineQueue: false, maxRetriesPerRequest: 0 })
    : undefined;
  probe?.on('error', () => undefined); // the readiness check reports it; the other connections log it
  const wanted = config.ops.metrics.port !== undefined || config.ops.metrics.token !== undefined;
  const streams = new Set<ServerResponse>();
  let queue: Queue | undefined;
  const metrics = wanted
    ? new AppMetrics(
        {
          runsInProgress: () => ctx.runs.size,
          // An open stream is one answered 200 and not ended; refusals pass through quickly.
          openStreams: () => [...streams].filter((response) => response.headersSent && response.statusCode === 200).length,
          controlSockets: () => app().websocketServer?.clients.size ?? 0,
          ...(redisUrl
            ? {
                queueDepth: () => {
                  queue ??= new Queue(RUN_QUEUE_NAME, {
                    connection: { url: redisUrl, maxRetriesPerRequest: 1 },
                    prefix: bullPrefix(redisPrefix),
                  });
                  return queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
                },
              }
            : {}),
          ledger: () => ledgerTotals(ctx.db),
        },
        config.executions,
      )
    : undefined;
  if (metrics) {
    ctx.runs = new MeteredRuns(metrics, ctx);
    ctx.webhooks.observe((outcome) => metrics.webhookAttempts.inc({ outcome }));
  }
  const observeFrontRoute: FrontRouteObserver | undefined = metrics
    ? (_request: IncomingMessage, response: ServerResponse) => {
        const started = performance.now();
        streams.add(response);
        response.once('close', () => {
          streams.delete(response);
          metrics.observeRequest('GET', STREAM_ROUTE, response.statusCode, (performance.now() - started) / 1000);
        });
      }
    : undefined;
  let server: Server | undefined;
  return {
    metrics,
    observeFrontRoute,
    readiness: () => checkReadiness(readinessChecks(ctx, probe), config.ops.readyCheckTimeoutMs, log),
    async start() {
      const { port, host } = config.ops.metrics;
      if (!metrics || port === undefined) return;
      server = metricsServer(metrics);
      const listening = server;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, host, () => resolve());
      });
      log.info({ host, port: (listening.address() as { port: number }).port }, 'metrics served');
    },
    async close() {
      metrics?.close();
      probe?.disconnect();
      await queue?.close().catch(() => undefined);
      const running = server;
      if (!running) return;
      const closed = new Promise<void>((resolve) => running.close(() => resolve()));
      // A scraper's keep-alive connection would otherwise hold the close open.
      running.closeAllConnections();
      await closed;
    },
  };
}

/** METRICS_PORT: a server of its own, on an address operators choose (127.0.0.1 by default), with no token. */
function metricsServer(metrics: AppMetrics): Server {
  return createServer((request, response) => {
    if (request.method !== 'GET' || (request.url ?? '').split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
}

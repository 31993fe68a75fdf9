import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import type { AppContext } from '../context.js';
import { bullPrefix, RUN_QUEUE_NAME } from '../distributed/bull-run-queue.js';
import type { FrontRouteObserver } from '../http/front-routes.js';
import { portRefusal } from '../port-refusal.js';
import type { RunRegistry } from '../ports/runs.js';
import { AppMetrics } from './metrics.js';
import { ledgerTotals } from './ops.store.js';
import { checkReadiness, type Readiness, readinessChecks } from './readiness.js';

/** The route pattern of the event stream, served ahead of Fastify (the only front route). */
const STREAM_ROUTE = '/executions/:executionId/stream';

/** The operations side of one node: probes, metrics, and what they read. */
export interface Ops {
  metrics: AppMetrics | undefined;
  observeFrontRoute: FrontRouteObserver | undefined;
  readiness(): Promise<Readiness>;
  /** Where the control-socket gauge reads its count (an API node's WebSocket server); none on a worker. */
  countControlSockets(count: () => number): void;
  /** Where the warm-sandbox gauge reads its counts: the context's pools, built after this. */
  countWarmSandboxes(count: () => Record<string, number>): void;
  /** Starts the metrics port (METRICS_PORT), when set: /metrics, and the probes for nodes with no API port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

type OpsParts = Pick<AppContext, 'db' | 'config' | 'blobs' | 'log'> & {
  /** This node's run registry: the runs in progress, and whether they stop for a restart. */
  runs: RunRegistry;
  /** The running count of statements sent the database (Database.statementsSent). */
  databaseStatements: () => number;
  /** The running count of transactions committed (Database.commitsSent). */
  databaseCommits: () => number;
  /** The computer image's version, when this node runs computers on one. */
  computerImageVersion: string | undefined;
};

/**
 * Builds the operations side before the context: the server factory needs the front-route
 * observer. The metrics count the runs of the registry it is given.
 */
export function createOps(parts: OpsParts, redisPrefix: string): Ops {
  const { log, config, runs } = parts;
  let controlSockets = () => 0;
  let warmSandboxes = (): Record<string, number> => ({});
  const redisUrl = config.redisUrl;
  // Probes must fail fast: no queueing while disconnected, no retries of a command.
  const probe = redisUrl
    ? new Redis(redisUrl, { connectionName: `${redisPrefix}probe`, enableOfflineQueue: false, maxRetriesPerRequest: 0 })
    : undefined;
  probe?.on('error', () => undefined); // the readiness check reports it; the other connections log it
  const wanted = config.ops.metrics.port !== undefined || config.ops.metrics.token !== undefined;
  /** Each open event stream's response, with when it opened (performance.now()). */
  const streams = new Map<ServerResponse, number>();
  let queue: Queue | undefined;
  const metrics: AppMetrics | undefined = wanted
    ? new AppMetrics(
        {
          runsInProgress: () => runs.size,
          // An open stream is one answered 200 and not ended; refusals pass through quickly.
          openStreams: () => [...streams.keys()].filter((response) => response.headersSent && response.statusCode === 200).length,
          controlSockets: () => controlSockets(),
          warmSandboxes: () => warmSandboxes(),
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
          ledger: () => ledgerTotals(parts.db),
          databaseStatements: parts.databaseStatements,
          databaseCommits: parts.databaseCommits,
          computerImageVersion: parts.computerImageVersion,
        },
        config.executions,
      )
    : undefined;
  // One listener for every stream, which gets its response as `this`: a closure (or a `once`
  // wrapper) per stream would be kept for as long as the stream is open.
  const streamClosed = function (this: ServerResponse) {
    const started = streams.get(this);
    if (started === undefined || !metrics) return;
    streams.delete(this);
    metrics.observeRequest('GET', STREAM_ROUTE, this.statusCode, (performance.now() - started) / 1000);
  };
  const observeFrontRoute: FrontRouteObserver | undefined = metrics
    ? (_request: IncomingMessage, response: ServerResponse) => {
        streams.set(response, performance.now());
        response.on('close', streamClosed);
      }
    : undefined;
  let server: Server | undefined;
  const readiness = () => checkReadiness(readinessChecks({ ...parts, runs }, probe), config.ops.readyCheckTimeoutMs, log);
  return {
    metrics,
    observeFrontRoute,
    readiness,
    countControlSockets(count) {
      controlSockets = count;
    },
    countWarmSandboxes(count) {
      warmSandboxes = count;
    },
    async start() {
      const { port, host } = config.ops.metrics;
      if (!metrics || port === undefined) return;
      server = opsServer(metrics, readiness);
      const listening = server;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', (error) => reject(portRefusal(error, { port: 'METRICS_PORT', host: 'METRICS_HOST' })));
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

/**
 * METRICS_PORT: a server of its own, on an address operators choose (127.0.0.1 by default),
 * with no token. It answers the probes too, the way the API port does: a worker has no other port.
 */
function opsServer(metrics: AppMetrics, readiness: () => Promise<Readiness>): Server {
  return createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const json = (status: number, body: unknown) =>
      response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));
    if (request.method === 'GET' && path === '/healthz') return json(200, { status: 'ok' });
    if (request.method === 'GET' && path === '/readyz') {
      readiness().then(
        ({ ready, checks }) => json(ready ? 200 : 503, { status: ready ? 'ready' : 'unready', checks }),
        () => json(503, { status: 'unready' }),
      );
      return;
    }
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: metrics are at /metrics\n');
      return;
    }
    metrics.exposition().then(
      (text) => response.writeHead(200, { 'content-type': metrics.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
}

import cookie from '@fastify/cookie';
import formBody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import { type DestinationStream, pino } from 'pino';
import { activationRoutes } from './activation/activation.routes.js';
import { sweepExpiredActivations } from './activation/lifecycle.js';
import { verificationPageRoutes } from './activation/verification-page.routes.js';
import { artifactRoutes } from './artifacts/artifacts.routes.js';
import { sweepOrphanBlobs } from './artifacts/blob-collection.js';
import { publicFileRoutes } from './artifacts/public-files.routes.js';
import { recoverArtifacts } from './artifacts/recovery.js';
import { billingRoutes } from './billing/billing.routes.js';
import { checkoutPageRoutes } from './billing/checkout-page.routes.js';
import { releaseHoldsOfNode } from './billing/model-holds.js';
import { webhookRoutes } from './billing/webhook.routes.js';
import type { Clock } from './clock.js';
import { createAppContext } from './compose.js';
import type { Config } from './config.js';
import { agentConnectRoutes } from './consent/agent-connect.routes.js';
import { connectPageRoutes } from './consent/connect-page.routes.js';
import type { Database } from './db/database.js';
import { bullRunQueue, startRunWorker } from './distributed/bull-run-queue.js';
import { CLUSTER_TICK_MS, clusterTick } from './distributed/cluster.js';
import { redisParts } from './distributed/redis-parts.js';
import { controlPlaneRoutes } from './executions/control-plane.routes.js';
import { executionRoutes } from './executions/executions.routes.js';
import { listenForRunStops } from './executions/remote-stop.js';
import { failAbandonedRuns } from './executions/runner.js';
import { streamRoute } from './executions/stream.routes.js';
import { clientErrorWriter, replySink, writeError } from './http/error-writer.js';
import { pathOf, SilentConnections, serverWithFrontRoutes } from './http/front-routes.js';
import { openApiOptions } from './http/openapi.js';
import { installPlumbing } from './http/plumbing.js';
import { REQUEST_ID_HEADER, requestIdOf } from './http/request-id.js';
import { authRoutes } from './identity/auth.routes.js';
import { keyRoutes } from './identity/keys.routes.js';
import { workspaceRoutes } from './identity/workspaces.routes.js';
import { mcpRoutes } from './mcp/mcp.routes.js';
import { oauthRoutes } from './oauth/oauth.routes.js';
import { oauthPageRoutes } from './oauth/oauth-pages.routes.js';
import { createOAuthProvider } from './oauth/provider.js';
import { sweepExpiredOAuthRecords } from './oauth/sweep.js';
import { createOps } from './ops/ops.js';
import { opsRoutes } from './ops/ops.routes.js';
import { drainNode } from './ops/shutdown.js';
import { BUILTIN_SKILLS_DIR } from './paths.js';
import { MemoryRateLimitStore, type RateLimitStore } from './rate-limit/store.js';
import type { EventBus } from './realtime/bus.js';
import { marketplaceRoutes } from './skills/marketplace.routes.js';
import { loadSkillRegistry } from './skills/registry.js';
import { detectSandbox, type SkillSandbox } from './skills/sandbox.js';
import { threadRoutes } from './threads/threads.routes.js';
import { appPageRoutes } from './webapp/app-pages.routes.js';
import { appSessionRoutes } from './webapp/app-session.routes.js';
import { pruneWebhookLog } from './webhooks/retention.js';
import { webhookEndpointRoutes } from './webhooks/webhooks.routes.js';

export interface AppDeps {
  config: Config;
  database: Database;
  clock: Clock;
  /** In memory, or in Redis when REDIS_URL is set, when absent. */
  rateLimits?: RateLimitStore;
  /** Live event announcements; in-process, or over Redis when REDIS_URL is set, when absent. */
  bus?: EventBus;
  /** Keeps this app's Redis keys and channels apart from others' on one Redis (REDIS_PREFIX when absent). */
  redisPrefix?: string;
  /** Where log lines go; stdout when absent. */
  logStream?: DestinationStream;
  /** How skills are confined; detected on this machine from SKILL_SANDBOX when absent. */
  sandbox?: SkillSandbox;
}

const SWEEP_INTERVAL_MS = 60_000;
/** How long the run queue worker may take to close once its runs are stopped. */
const WORKER_CLOSE_MS = 5000;

/** Whether `promise` settles within `ms` (it is left running either way). */
async function settlesWithin(promise: Promise<unknown> | undefined, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([Promise.resolve(promise).then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}
const BLOB_SWEEP_INTERVAL_MS = 15 * 60_000;

/** Logged request lines carry the path only: query strings can hold codes and signatures. */
function requestSummary(request: { method: string; url: string; ip: string }) {
  return { method: request.method, path: pathOf(request.url), remoteAddress: request.ip };
}

/** Builds the whole application. It never listens: main.ts does, tests use inject or listen. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database, clock } = deps;
  const { registry: skills, problems } = await loadSkillRegistry({ builtIn: BUILTIN_SKILLS_DIR, extra: config.skillsDir });
  const sandbox = deps.sandbox ?? (await detectSandbox(config.executions.sandbox));
  const logOptions = { level: config.logLevel, serializers: { req: requestSummary } };
  const log: FastifyBaseLogger = deps.logStream ? pino(logOptions, deps.logStream) : pino(logOptions);
  const redisPrefix = deps.redisPrefix ?? config.redisPrefix;
  const shared = config.redisUrl
    ? redisParts(config.redisUrl, {
        prefix: redisPrefix,
        credentialTtlMs: config.credentialCacheSeconds * 1000,
        log,
      })
    : undefined;
  const runQueue = config.redisUrl ? bullRunQueue(config.redisUrl, redisPrefix, log) : undefined;
  const ctx = createAppContext({
    config,
    database,
    clock,
    rateLimits: deps.rateLimits ?? shared?.rateLimits ?? new MemoryRateLimitStore(),
    skills,
    sandbox,
    log,
    ...(shared ? { control: shared.control, credentials: shared.credentials } : {}),
    ...(deps.bus || shared ? { bus: deps.bus ?? shared?.bus } : {}),
    ...(runQueue ? { runQueue } : {}),
  });
  ctx.bus.onReconnect?.(() => ctx.streams.catchUpAll());
  // Before anything starts a run: with metrics on, it swaps in the run registry that counts them.
  const ops = createOps(ctx, redisPrefix, log, () => app);

  const silentConnections = new SilentConnections();
  const app = Fastify({
    loggerInstance: log,
    serverFactory: serverWithFrontRoutes([streamRoute(ctx)], silentConnections, config.requestTimeoutMs, ops.observeFrontRoute),
    // The HTTP server names each request (a client's own well-formed x-request-id, else a
    // UUID); every log line of the request carries it as requestId.
    genReqId: requestIdOf,
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // Each route's schema bounds its params and refuses in the route family's envelope. The
    // router's own limit (100 characters by default) came first and refused schema-valid ids
    // (a thread id may be 200) with a 400 in the standard shape, even on artifact routes. Node's
    // HTTP parser already caps a request line at 16 KiB.
    routerOptions: { maxParamLength: 16 * 1024 },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    // Fastify answers these two in its own shape unless told otherwise.
    frameworkErrors: (error, _request, reply) => void writeError(replySink(reply), error, 'standard'),
    clientErrorHandler: clientErrorWriter(log),
  }).withTypeProvider<TypeBoxTypeProvider>();

  for (const problem of problems) app.log.warn({ problem }, 'skill left out');
  if (ctx.payments.startupWarning) app.log.warn({ payments: ctx.payments.name }, ctx.payments.startupWarning);
  if (sandbox.warning) app.log.warn({ sandbox: sandbox.kind }, sandbox.warning);
  // First, so that every answer carries it, refusals by the hooks after it included.
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });
  const { metrics } = ops;
  if (metrics) {
    app.addHook('onResponse', async (request, reply) => {
      // The route's pattern, never the URL: one series per route, not per execution id.
      const route = request.routeOptions.url ?? 'unmatched';
      metrics.observeRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    });
  }
  // Before the plumbing's hook: the web app's session cookie is a credential.
  await app.register(cookie);
  installPlumbing(app, ctx);
  await app.register(formBody, { bodyLimit: 16 * 1024 });
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(swagger, openApiOptions(config.publicUrl));

  await app.register(authRoutes(ctx), { prefix: '/api/v1' });
  await app.register(workspaceRoutes(ctx), { prefix: '/api/v1' });
  await app.register(keyRoutes(ctx), { prefix: '/api/v1' });
  await app.register(activationRoutes(ctx), { prefix: '/api/v1' });
  await app.register(agentConnectRoutes(ctx), { prefix: '/api/v1' });
  await app.register(executionRoutes(ctx), { prefix: '/api/v1' });
  await app.register(marketplaceRoutes(ctx), { prefix: '/api/v1' });
  await app.register(artifactRoutes(ctx), { prefix: '/api/v1' });
  await app.register(threadRoutes(ctx), { prefix: '/api/v1' });
  await app.register(publicFileRoutes(ctx));
  await app.register(billingRoutes(ctx), { prefix: '/api/v1' });
  await app.register(webhookRoutes(ctx), { prefix: '/api/v1' });
  await app.register(webhookEndpointRoutes(ctx), { prefix: '/api/v1' });
  await app.register(checkoutPageRoutes(ctx));
  await app.register(controlPlaneRoutes(ctx));
  await app.register(verificationPageRoutes(ctx));
  await app.register(appSessionRoutes(ctx), { prefix: '/api/v1' });
  await app.register(appPageRoutes(ctx));
  await app.register(connectPageRoutes(ctx));
  await app.register(mcpRoutes(ctx));
  const oauthProvider = createOAuthProvider(ctx);
  await app.register(oauthRoutes(ctx, oauthProvider));
  await app.register(oauthPageRoutes(ctx, oauthProvider));
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());
  await app.register(opsRoutes({ readiness: ops.readiness, metrics, metricsToken: config.ops.metrics.token }));

  let sweeper: NodeJS.Timeout | undefined;
  let runWorker: ReturnType<typeof startRunWorker> | undefined;
  let workerClosed: Promise<void> | undefined;
  // Once: a drain starts closing the worker, and the close then waits for that same close.
  const closeWorker = () => (workerClosed ??= runWorker?.close());
  app.decorate('drain', (graceMs: number, cut?: AbortSignal) => drainNode({ runs: ctx.runs, closeWorker, log }, graceMs, cut));
  const stopListening = listenForRunStops(ctx);
  app.addHook('onReady', async () => {
    await ops.start();
    const abandoned = await failAbandonedRuns(ctx);
    if (abandoned > 0) app.log.warn({ abandoned }, 'ended runs cut off by the last shutdown');
    const heldCalls = await releaseHoldsOfNode(ctx);
    if (heldCalls > 0) app.log.warn({ heldCalls }, 'let go of credits held for model calls cut off by the last shutdown');
    // Deliveries queued before a restart (or by another node) are picked up from here on.
    ctx.webhooks.start();
    ctx.webhooks.kick();
    const recovered = await recoverArtifacts(ctx);
    if (recovered.failed + recovered.removedBlobs > 0)
      app.log.warn(recovered, 'cleaned up artifacts cut off by the last shutdown');
    const sweep = async () => {
      await sweepExpiredActivations(ctx).catch((error: unknown) => app.log.error({ err: error }, 'activation sweep failed'));
      await sweepExpiredOAuthRecords(ctx).catch((error: unknown) => app.log.error({ err: error }, 'OAuth sweep failed'));
      await pruneWebhookLog(ctx).catch((error: unknown) => app.log.error({ err: error }, 'webhook log sweep failed'));
    };
    if (config.redisUrl) {
      // A cluster: every node beats; the one holding the lease ends lost runs and sweeps.
      let sweptAt = 0;
      let blobsSweptAt = 0;
      const tick = () =>
        clusterTick(ctx, async () => {
          if (Date.now() - sweptAt < SWEEP_INTERVAL_MS) return;
          sweptAt = Date.now();
          await sweep();
          // It lists every old blob (a whole bucket, with S3): not every minute.
          if (Date.now() - blobsSweptAt < BLOB_SWEEP_INTERVAL_MS) return;
          blobsSweptAt = Date.now();
          await sweepOrphanBlobs(ctx).catch((error: unknown) => app.log.error({ err: error }, 'blob sweep failed'));
        })
          .then((outcome) => outcome?.lostRuns && app.log.warn({ lostRuns: outcome.lostRuns }, 'ended runs of a silent node'))
          .catch((error: unknown) => app.log.error({ err: error }, 'cluster tick failed'));
      await tick();
      sweeper = setInterval(tick, CLUSTER_TICK_MS);
      if (config.nodeRole !== 'api') runWorker = startRunWorker(ctx, config.redisUrl, redisPrefix);
    } else {
      sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
    }
    sweeper.unref();
  });
  // The server's close waits for open connections: a stream would hold it open until its
  // run ends, and a connection that never sent a request, for good.
  app.addHook('preClose', async () => {
    ctx.streams.closeAll();
    silentConnections.closeAll();
  });
  app.addHook('onClose', async () => {
    clearInterval(sweeper);
    stopListening();
    // The worker stops taking jobs first; its close then waits for the runs stopped here.
    const closing = closeWorker();
    await ctx.runs.stopAll();
    // Its runs are stopped, so the worker has nothing left to wait for: a close that still
    // does not end is stuck on a reconnecting connection, and is cut rather than waited on.
    if (!(await settlesWithin(closing, WORKER_CLOSE_MS))) {
      app.log.warn('the run queue worker did not close in time: its connections are cut');
      runWorker?.cut();
    }
    // After the runs: their last webhooks are queued by then, and the ones under way finish.
    await ctx.webhooks.close();
    await runQueue?.close();
    await ops.close();
    await shared?.close();
  });

  return app;
}

import type { FastifyBaseLogger } from 'fastify';
import { type DestinationStream, pino } from 'pino';
import { blobStoreFor } from './artifacts/blob-store-for.js';
import { type Background, background } from './background.js';
import { paymentProviderFor } from './billing/payment-provider.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { Database } from './db/database.js';
import { bullRunQueue } from './distributed/bull-run-queue.js';
import { redisParts } from './distributed/redis-parts.js';
import { pathOf } from './http/front-routes.js';
import { SharedCredentialCache } from './identity/cache-invalidations.js';
import { CredentialCache } from './identity/credential-cache.js';
import { MemoryRateLimitStore } from './identity/rate-limit-store.js';
import { smtpMailer } from './mail/mailer.js';
import { createOps, type Ops } from './ops/ops.js';
import { meterRuns } from './ops/run-metrics.js';
import { BUILTIN_SKILLS_DIR } from './paths.js';
import type { BlobStore } from './ports/blob-store.js';
import type { Channels, ControlMessage, EventBus } from './ports/channels.js';
import type { PaymentProvider } from './ports/payments.js';
import type { RateLimitStore } from './ports/rate-limits.js';
import type { RunQueue } from './ports/runs.js';
import type { SkillSandbox } from './ports/sandbox.js';
import { InProcessChannels } from './realtime/bus.js';
import { signalRunLife } from './realtime/control-messages.js';
import { Heartbeats } from './realtime/heartbeats.js';
import { OpenStreams } from './realtime/open-streams.js';
import { ActiveRuns } from './runs/active-runs.js';
import { RunLifeBus } from './runs/run-life.js';
import { ComputerPool } from './runtime/computer/computer-pool.js';
import { ScriptPool } from './runtime/script/script-pool.js';
import { Clearings } from './sandbox/clearings.js';
import { computerMissing } from './sandbox/computer/computer-availability.js';
import { withComputerImage } from './sandbox/computer/computer-image.js';
import { readImageRecipe } from './sandbox/computer/computer-image-recipe.js';
import { BUILT_INS_ONLY, detectSandbox } from './sandbox/sandbox.js';
import { deriveKey } from './secrets.js';
import { loadSkillRegistry, SkillRegistry } from './skills/registry.js';
import { runThreadTurn } from './threads/thread-agent.js';
import { notifyThreadsOfRunEnds } from './threads/thread-notifications.js';
import { THREAD_HEARTBEAT_MS } from './threads/thread-stream.js';
import { NodeThreadTurns } from './threads/thread-turns.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { queueWebhooksOfRunEnds } from './webhooks/producers.js';

export interface ContextParts {
  config: Config;
  database: Database;
  clock: Clock;
  rateLimits: RateLimitStore;
  skills?: SkillRegistry;
  /** Built-in skills on the permission model alone when absent (a context that runs no skill). */
  sandbox?: SkillSandbox;
  bus?: EventBus;
  /** Control-plane channels; in-process when absent. */
  control?: Channels<ControlMessage>;
  /** Resolved credentials; a cache of this node's own when absent. */
  credentials?: CredentialCache;
  blobs?: BlobStore;
  runQueue?: RunQueue;
  payments?: PaymentProvider;
  /** Silent when absent: tests that build a context of their own. */
  log?: FastifyBaseLogger;
  /** This node's run registry; a new one when absent. */
  runs?: ActiveRuns;
}

export function createAppContext(parts: ContextParts): AppContext {
  const { config, database } = parts;
  const sandbox = parts.sandbox ?? BUILT_INS_ONLY;
  const log = parts.log ?? pino({ level: 'silent' });
  const runLife = new RunLifeBus(log);
  const ctx: Omit<AppContext, 'webhooks'> = {
    runLife,
    threadTurns: new NodeThreadTurns(runThreadTurn),
    threadHeartbeats: new Heartbeats(parts.clock, THREAD_HEARTBEAT_MS),
    db: database.db,
    dialect: database.dialect,
    clock: parts.clock,
    config,
    rateLimits: parts.rateLimits,
    credentials: parts.credentials ?? new CredentialCache(config.credentialCacheSeconds * 1000),
    skills: parts.skills ?? new SkillRegistry([]),
    sandbox,
    computers: computerMissing(sandbox) ? undefined : new ComputerPool({ sandbox, config, log, clock: parts.clock }),
    scripts: sandbox.kind === 'bwrap' ? new ScriptPool({ sandbox, config, log, clock: parts.clock }) : undefined,
    clearings: new Clearings(log),
    bus: parts.bus ?? new InProcessChannels(),
    control: parts.control ?? new InProcessChannels(),
    runs: parts.runs ?? new ActiveRuns(),
    ...(parts.runQueue ? { runQueue: parts.runQueue } : {}),
    streams: new OpenStreams(config.executions.heartbeatMs),
    payments: parts.payments ?? paymentProviderFor(config),
    mailer: config.mail && smtpMailer(config.mail),
    blobs: parts.blobs ?? blobStoreFor(config),
    keys: {
      sealing: deriveKey(config.signingSecret, 'sealing'),
      signing: deriveKey(config.signingSecret, 'url-signing'),
      byok: deriveKey(config.signingSecret, 'byok'),
      webhookSecrets: deriveKey(config.signingSecret, 'webhook-secrets'),
    },
    log,
  };
  const webhooks = new WebhookDispatcher(ctx);
  const composed: AppContext = { ...ctx, webhooks };
  // The parts above the runs hear of a run's life here, in this order: its clients first.
  signalRunLife(runLife, composed);
  queueWebhooksOfRunEnds(runLife, webhooks);
  notifyThreadsOfRunEnds(runLife, composed);
  return composed;
}

export interface NodeDeps {
  config: Config;
  database: Database;
  clock: Clock;
  /** In memory, or in Redis when REDIS_URL is set, when absent. */
  rateLimits?: RateLimitStore;
  /** Live event announcements; in-process, or over Redis when REDIS_URL is set, when absent. */
  bus?: EventBus;
  /** Keeps this node's Redis keys and channels apart from others' on one Redis (REDIS_PREFIX when absent). */
  redisPrefix?: string;
  /** Where log lines go; stdout when absent. */
  logStream?: DestinationStream;
  /** How skills are confined; detected on this machine from SKILL_SANDBOX when absent. */
  sandbox?: SkillSandbox;
}

/** Every long-lived part of one node, built once; the HTTP app and the worker entry point each take one. */
export interface ComposedNode {
  ctx: AppContext;
  ops: Ops;
  background: Background;
  /** Said once at startup: skills left out, and how payments and the sandbox are set up. */
  warnings: { fields: Record<string, unknown>; message: string }[];
}

/** Logged request lines carry the path only: query strings can hold codes and signatures. */
function requestSummary(request: { method: string; url: string; ip: string }) {
  return { method: request.method, path: pathOf(request.url), remoteAddress: request.ip };
}

/**
 * The composition root: skills, sandbox, logger, the Redis side of a cluster, the run queue,
 * the ops side (whose run registry the context takes), the context, and the background
 * work that closes them all in order.
 */
export async function composeNode(deps: NodeDeps): Promise<ComposedNode> {
  const { config, database, clock } = deps;
  const {
    registry: skills,
    problems,
    replaced,
  } = await loadSkillRegistry({
    builtIn: BUILTIN_SKILLS_DIR,
    extra: config.skillsDir,
  });
  const sandbox =
    deps.sandbox ??
    withComputerImage(await detectSandbox(config.executions.sandbox), config.executions.computerImage, readImageRecipe().version);
  const logOptions = { level: config.logLevel, serializers: { req: requestSummary } };
  const log: FastifyBaseLogger = deps.logStream ? pino(logOptions, deps.logStream) : pino(logOptions);
  const redisPrefix = deps.redisPrefix ?? config.redisPrefix;
  const shared = config.redisUrl ? redisParts(config.redisUrl, { prefix: redisPrefix, log }) : undefined;
  const sharedCredentials = shared && new SharedCredentialCache(config.credentialCacheSeconds * 1000, shared.invalidations);
  const runQueue = config.redisUrl ? bullRunQueue(config.redisUrl, redisPrefix, log) : undefined;
  const blobs = blobStoreFor(config);
  const runs = new ActiveRuns();
  const ops = createOps(
    {
      runs,
      db: database.db,
      config,
      blobs,
      log,
      databaseStatements: database.statementsSent,
      databaseCommits: database.commitsSent,
      computerImageVersion: sandbox.computerImage?.version,
    },
    redisPrefix,
  );
  const ctx = createAppContext({
    config,
    database,
    clock,
    rateLimits: deps.rateLimits ?? shared?.rateLimits ?? new MemoryRateLimitStore(),
    skills,
    sandbox,
    log,
    blobs,
    runs,
    ...(shared && sharedCredentials ? { control: shared.control, credentials: sharedCredentials } : {}),
    ...(deps.bus || shared ? { bus: deps.bus ?? shared?.bus } : {}),
    ...(runQueue ? { runQueue } : {}),
  });
  ctx.bus.onReconnect?.(() => ctx.streams.catchUpAll());
  // A kind this node cannot give has no pool, and no series.
  ops.countWarmSandboxes(() => ({
    ...(ctx.computers ? { computer: ctx.computers.size } : {}),
    ...(ctx.scripts ? { script: ctx.scripts.size } : {}),
  }));
  const { metrics } = ops;
  if (metrics) {
    ctx.webhooks.observe((outcome) => metrics.webhookAttempts.inc({ outcome }));
    meterRuns(ctx.runLife, metrics);
  }
  const closeLast = [
    async () => runQueue?.close(),
    () => ops.close(),
    async () => {
      sharedCredentials?.stop();
      await shared?.close();
    },
  ];
  const warnings: ComposedNode['warnings'] = [
    ...problems.map((problem) => ({ fields: { problem }, message: 'skill left out' })),
    ...replaced.map((slug) => ({
      fields: { slug, skillsDir: config.skillsDir },
      message: 'a skill of SKILLS_DIR replaces the built-in skill of the same slug',
    })),
  ];
  if (ctx.payments.startupWarning)
    warnings.push({ fields: { payments: ctx.payments.name }, message: ctx.payments.startupWarning });
  if (sandbox.warning) warnings.push({ fields: { sandbox: sandbox.kind }, message: sandbox.warning });
  return { ctx, ops, background: background({ ctx, redisPrefix, closeLast }), warnings };
}

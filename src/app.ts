import formBody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { type DestinationStream, pino } from 'pino';
import { activationRoutes } from './activation/activation.routes.js';
import { sweepExpiredActivations } from './activation/lifecycle.js';
import { verificationPageRoutes } from './activation/verification-page.routes.js';
import { artifactRoutes } from './artifacts/artifacts.routes.js';
import { publicFileRoutes } from './artifacts/public-files.routes.js';
import { recoverArtifacts } from './artifacts/recovery.js';
import { billingRoutes } from './billing/billing.routes.js';
import { checkoutPageRoutes } from './billing/checkout-page.routes.js';
import { webhookRoutes } from './billing/webhook.routes.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import { createAppContext } from './context.js';
import type { Database } from './db/database.js';
import type { EventBus } from './executions/bus.js';
import { controlPlaneRoutes } from './executions/control-plane.routes.js';
import { executionRoutes } from './executions/executions.routes.js';
import { failAbandonedRuns } from './executions/runner.js';
import { streamRoute } from './executions/stream.routes.js';
import { clientErrorWriter, replySink, writeError } from './http/error-writer.js';
import { pathOf, SilentConnections, serverWithFrontRoutes } from './http/front-routes.js';
import { openApiOptions } from './http/openapi.js';
import { installPlumbing } from './http/plumbing.js';
import { authRoutes } from './identity/auth.routes.js';
import { keyRoutes } from './identity/keys.routes.js';
import { workspaceRoutes } from './identity/workspaces.routes.js';
import { BUILTIN_SKILLS_DIR } from './paths.js';
import type { RateLimitStore } from './rate-limit/store.js';
import { marketplaceRoutes } from './skills/marketplace.routes.js';
import { loadSkillRegistry } from './skills/registry.js';
import { detectSandbox, type SkillSandbox } from './skills/sandbox.js';

export interface AppDeps {
  config: Config;
  database: Database;
  clock: Clock;
  rateLimits: RateLimitStore;
  /** Live event announcements; in-process when absent. */
  bus?: EventBus;
  /** Where log lines go; stdout when absent. */
  logStream?: DestinationStream;
  /** How skills are confined; detected on this machine from SKILL_SANDBOX when absent. */
  sandbox?: SkillSandbox;
}

const SWEEP_INTERVAL_MS = 60_000;

/** Logged request lines carry the path only: query strings can hold codes and signatures. */
function requestSummary(request: { method: string; url: string; ip: string }) {
  return { method: request.method, path: pathOf(request.url), remoteAddress: request.ip };
}

/** Builds the whole application. It never listens: main.ts does, tests use inject or listen. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database, clock, rateLimits } = deps;
  const { registry: skills, problems } = await loadSkillRegistry({ builtIn: BUILTIN_SKILLS_DIR, extra: config.skillsDir });
  const sandbox = deps.sandbox ?? (await detectSandbox(config.executions.sandbox));
  const logOptions = { level: config.logLevel, serializers: { req: requestSummary } };
  const log: FastifyBaseLogger = deps.logStream ? pino(logOptions, deps.logStream) : pino(logOptions);
  const ctx = createAppContext({
    config,
    database,
    clock,
    rateLimits,
    skills,
    sandbox,
    log,
    ...(deps.bus ? { bus: deps.bus } : {}),
  });

  const silentConnections = new SilentConnections();
  const app = Fastify({
    loggerInstance: log,
    serverFactory: serverWithFrontRoutes([streamRoute(ctx)], silentConnections),
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
    // Fastify answers these two in its own shape unless told otherwise.
    frameworkErrors: (error, _request, reply) => void writeError(replySink(reply), error, 'standard'),
    clientErrorHandler: clientErrorWriter(log),
  }).withTypeProvider<TypeBoxTypeProvider>();

  for (const problem of problems) app.log.warn({ problem }, 'skill left out');
  if (ctx.payments.startupWarning) app.log.warn({ payments: ctx.payments.name }, ctx.payments.startupWarning);
  if (sandbox.warning) app.log.warn({ sandbox: sandbox.kind }, sandbox.warning);
  installPlumbing(app, ctx);
  await app.register(formBody, { bodyLimit: 16 * 1024 });
  await app.register(websocket, { options: { maxPayload: 64 * 1024 } });
  await app.register(swagger, openApiOptions(config.publicUrl));

  await app.register(authRoutes(ctx), { prefix: '/api/v1' });
  await app.register(workspaceRoutes(ctx), { prefix: '/api/v1' });
  await app.register(keyRoutes(ctx), { prefix: '/api/v1' });
  await app.register(activationRoutes(ctx), { prefix: '/api/v1' });
  await app.register(executionRoutes(ctx), { prefix: '/api/v1' });
  await app.register(marketplaceRoutes(ctx), { prefix: '/api/v1' });
  await app.register(artifactRoutes(ctx), { prefix: '/api/v1' });
  await app.register(publicFileRoutes(ctx));
  await app.register(billingRoutes(ctx), { prefix: '/api/v1' });
  await app.register(webhookRoutes(ctx), { prefix: '/api/v1' });
  await app.register(checkoutPageRoutes(ctx));
  await app.register(controlPlaneRoutes(ctx));
  await app.register(verificationPageRoutes(ctx));
  app.get('/openapi.json', { config: { auth: 'public' }, schema: { hide: true } }, async () => app.swagger());

  let sweeper: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    const abandoned = await failAbandonedRuns(ctx);
    if (abandoned > 0) app.log.warn({ abandoned }, 'ended runs cut off by the last shutdown');
    const recovered = await recoverArtifacts(ctx);
    if (recovered.failed + recovered.removedBlobs > 0)
      app.log.warn(recovered, 'cleaned up artifacts cut off by the last shutdown');
    sweeper = setInterval(() => {
      sweepExpiredActivations(ctx).catch((error: unknown) => app.log.error({ err: error }, 'activation sweep failed'));
    }, SWEEP_INTERVAL_MS);
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
    await ctx.runs.stopAll();
  });

  return app;
}

import formBody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import { activationRoutes } from './activation/activation.routes.js';
import { verificationPageRoutes } from './activation/verification-page.routes.js';
import { API_REFERENCE } from './api-reference.js';
import { artifactRoutes } from './artifacts/artifacts.routes.js';
import { artifactPreviewRoutes } from './artifacts/preview.routes.js';
import { publicFileRoutes } from './artifacts/public-files.routes.js';
import { billingRoutes } from './billing/billing.routes.js';
import { checkoutPageRoutes } from './billing/checkout-page.routes.js';
import { webhookRoutes } from './billing/webhook.routes.js';
import { composeNode, type NodeDeps } from './compose.js';
import { agentConnectRoutes } from './consent/agent-connect.routes.js';
import { connectPageRoutes } from './consent/connect-page.routes.js';
import { docsRoutes } from './docs/docs.routes.js';
import { fileRoutes } from './files/files.routes.js';
import { clientErrorWriter, replySink, writeError } from './http/error-writer.js';
import { SilentConnections, serverWithFrontRoutes } from './http/front-routes.js';
import { openApiOptions } from './http/openapi.js';
import { REQUEST_ID_HEADER, requestIdOf } from './http/request-id.js';
import { requestLogger } from './http/request-logger.js';
import { upgradesFor } from './http/upgrades.js';
import { authRoutes } from './identity/auth.routes.js';
import { invitationRoutes } from './identity/invitations.routes.js';
import { keyRoutes } from './identity/keys.routes.js';
import { installPlumbing } from './identity/request-gate.js';
import { workspaceRoutes } from './identity/workspaces.routes.js';
import { marketplaceRoutes } from './marketplace/marketplace.routes.js';
import { mcpRoutes } from './mcp/mcp.routes.js';
import { connectedAppRoutes } from './oauth/connected-apps.routes.js';
import { oauthRoutes } from './oauth/oauth.routes.js';
import { oauthPageRoutes } from './oauth/oauth-pages.routes.js';
import { createOAuthProvider } from './oauth/provider.js';
import { opsRoutes } from './ops/ops.routes.js';
import { controlPlaneRoutes } from './runs/control-plane.routes.js';
import { CONTROL_SOCKET_PATH } from './runs/control-url.js';
import { executionRoutes } from './runs/executions.routes.js';
import { runRoutes } from './runs/runs.routes.js';
import { streamRoute } from './runs/stream.routes.js';
import { skillUploadRoutes } from './skills/skill-upload.routes.js';
import { threadRoutes } from './threads/threads.routes.js';
import { appPageRoutes } from './webapp/app-pages.routes.js';
import { appSessionRoutes } from './webapp/app-session.routes.js';
import { webhookEndpointRoutes } from './webhooks/webhooks.routes.js';

/** What an app is built from: the parts of its node (compose.ts), most of them optional. */
export type AppDeps = NodeDeps;

/**
 * Builds the HTTP side of one node over the parts compose.ts builds. It never listens:
 * main.ts does, tests use inject or listen. Ready starts the node's background work; close
 * stops it.
 */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { ctx, ops, background, warnings } = await composeNode(deps);
  const { config, log } = ctx;

  const silentConnections = new SilentConnections();
  const app = Fastify({
    loggerInstance: log,
    serverFactory: serverWithFrontRoutes([streamRoute(ctx)], silentConnections, config.requestTimeoutMs, ops.observeFrontRoute),
    // The HTTP server names each request (a client's own well-formed x-request-id, else a
    // UUID); every log line of the request carries it as requestId.
    genReqId: requestIdOf,
    childLoggerFactory: requestLogger,
    requestIdHeader: false,
    // One access line per answered request (the hook below), not Fastify's two.
    logController: new LogController({ requestIdLogLabel: 'requestId', disableRequestLogging: true }),
    trustProxy: config.trustProxy,
    bodyLimit: config.bodyLimitBytes,
    // Each route's schema bounds its params and refuses in the route family's envelope. The
    // router's own limit (100 characters by default) came first and refused schema-valid ids
    // (a thread id may be 200) with a 400 in the standard shape, even on artifact routes. Node's
    // HTTP parser already caps a request line at 16 KiB.
    routerOptions: { maxParamLength: 16 * 1024 },
    // verbose: a union's refusal carries its branches and the value, so that validation-words.ts
    // can name the branch a value meant (an event's type) or list every value a field takes.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false, verbose: true } },
    // Fastify answers these two in its own shape unless told otherwise; they skip the gate,
    // which gives every other answer its request id.
    frameworkErrors: (error, request, reply) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      writeError(replySink(reply), error, 'standard');
    },
    clientErrorHandler: clientErrorWriter(log),
  }).withTypeProvider<TypeBoxTypeProvider>();

  for (const warning of warnings) app.log.warn(warning.fields, warning.message);
  // After the answer: the request (method, path, client), its status and how long it took.
  // Fastify's own pair of lines (received, completed) doubled what logging cost the hottest routes.
  // By default only answers of 400 and up: a line per successful request drowned what needs reading.
  const { accessLog } = ctx.config;
  const { metrics } = ops;
  // One hook for both, as each hook is a call per request.
  if (accessLog !== 'off' || metrics) {
    app.addHook('onResponse', (request, reply, done) => {
      if (accessLog === 'all' || (accessLog === 'errors' && reply.statusCode >= 400)) {
        request.log.info(
          { req: request, statusCode: reply.statusCode, responseTimeMs: Math.round(reply.elapsedTime * 10) / 10 },
          'request completed',
        );
      }
      // The route's pattern, never the URL: one series per route, not per execution id.
      metrics?.observeRequest(
        request.method,
        request.routeConfig?.url ?? 'unmatched',
        reply.statusCode,
        reply.elapsedTime / 1000,
      );
      done();
    });
  }
  installPlumbing(app, ctx);
  await app.register(formBody, { bodyLimit: 16 * 1024 });
  await app.register(swagger, openApiOptions(config.publicUrl, API_REFERENCE));
  // The API reference as a page, rendered by Swagger UI from files this server serves (no CDN).
  await app.register(swaggerUi, {
    routePrefix: '/docs/api',
    // Its own files only. Not its default policy: that upgrades requests to https, which
    // breaks a server reached over plain http (most self-hosted ones on a local network).
    staticCSP:
      "default-src 'self'; img-src 'self' data:; script-src 'self'; style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
    // No validator badge: it would send the document to validator.swagger.io.
    uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
  });

  await app.register(docsRoutes(ctx));
  await app.register(authRoutes(ctx), { prefix: '/api/v1' });
  await app.register(connectedAppRoutes(ctx), { prefix: '/api/v1' });
  await app.register(workspaceRoutes(ctx), { prefix: '/api/v1' });
  await app.register(invitationRoutes(ctx), { prefix: '/api/v1' });
  await app.register(keyRoutes(ctx), { prefix: '/api/v1' });
  await app.register(activationRoutes(ctx), { prefix: '/api/v1' });
  await app.register(agentConnectRoutes(ctx), { prefix: '/api/v1' });
  await app.register(executionRoutes(ctx), { prefix: '/api/v1' });
  await app.register(runRoutes(ctx), { prefix: '/api/v1' });
  await app.register(marketplaceRoutes(ctx), { prefix: '/api/v1' });
  await app.register(skillUploadRoutes(ctx), { prefix: '/api/v1' });
  await app.register(artifactRoutes(ctx), { prefix: '/api/v1' });
  await app.register(artifactPreviewRoutes(ctx), { prefix: '/api/v1' });
  await app.register(fileRoutes(ctx), { prefix: '/api/v1' });
  await app.register(threadRoutes(ctx), { prefix: '/api/v1' });
  await app.register(publicFileRoutes(ctx));
  await app.register(billingRoutes(ctx), { prefix: '/api/v1' });
  await app.register(webhookRoutes(ctx), { prefix: '/api/v1' });
  await app.register(webhookEndpointRoutes(ctx), { prefix: '/api/v1' });
  await app.register(checkoutPageRoutes(ctx));
  // The websocket plugin in a scope of its own, with the one route that upgrades: it hooks
  // and wraps every route of the scope it is in, which cost every request of the API two
  // hook calls and a wrapper. Only that route's upgrades reach it (http/upgrades.ts).
  const controlUpgrades = upgradesFor(app.server, CONTROL_SOCKET_PATH, log);
  await app.register(async (scope) => {
    await scope.register(websocket, { options: { maxPayload: 64 * 1024, server: controlUpgrades } });
    ops.countControlSockets(() => scope.websocketServer.clients.size);
    await scope.register(controlPlaneRoutes(ctx));
  });
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

  app.decorate('drain', background.drain);
  app.decorate('warmSandboxes', () => {
    ctx.computers?.start();
    ctx.scripts?.start();
  });
  app.addHook('onReady', async () => {
    await ops.start();
    await background.start();
  });
  // The server's close waits for open connections: a stream would hold it open until its
  // run ends, and a connection that never sent a request, for good.
  app.addHook('preClose', async () => {
    ctx.streams.closeAll();
    silentConnections.closeAll();
  });
  app.addHook('onClose', () => background.close());

  return app;
}

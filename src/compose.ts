import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import type { BlobStore } from './artifacts/blob-store.js';
import { blobStoreFor } from './artifacts/blob-store-for.js';
import { type PaymentProvider, paymentProviderFor } from './billing/payment-provider.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AppContext } from './context.js';
import type { Database } from './db/database.js';
import { ActiveRuns } from './executions/active-runs.js';
import type { RunQueue } from './executions/run-queue.js';
import { CredentialCache } from './identity/credential-cache.js';
import type { RateLimitStore } from './rate-limit/store.js';
import { type Channels, type EventBus, InProcessChannels } from './realtime/bus.js';
import type { ControlMessage } from './realtime/control-messages.js';
import { OpenStreams } from './realtime/open-streams.js';
import { deriveKey } from './secrets.js';
import { SkillRegistry } from './skills/registry.js';
import { BUILT_INS_ONLY, type SkillSandbox } from './skills/sandbox.js';
import { notifyThreadOfRunEnd } from './threads/thread-notifications.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';

export interface ContextParts {
  config: Config;
  database: Database;
  clock: Clock;
  rateLimits: RateLimitStore;
  skills?: SkillRegistry;
  /** Built-in skills on the permission model alone when absent (the admin CLI runs none). */
  sandbox?: SkillSandbox;
  bus?: EventBus;
  /** Control-plane channels; in-process when absent. */
  control?: Channels<ControlMessage>;
  /** Resolved credentials; a cache of this node's own when absent. */
  credentials?: CredentialCache;
  blobs?: BlobStore;
  runQueue?: RunQueue;
  payments?: PaymentProvider;
  /** Silent when absent: the admin CLI and tests that build a context of their own. */
  log?: FastifyBaseLogger;
}

export function createAppContext(parts: ContextParts): AppContext {
  const { config, database } = parts;
  const ctx: Omit<AppContext, 'webhooks'> = {
    runEndListeners: [notifyThreadOfRunEnd],
    db: database.db,
    dialect: database.dialect,
    clock: parts.clock,
    config,
    rateLimits: parts.rateLimits,
    credentials: parts.credentials ?? new CredentialCache(config.credentialCacheSeconds * 1000),
    skills: parts.skills ?? new SkillRegistry([]),
    sandbox: parts.sandbox ?? BUILT_INS_ONLY,
    bus: parts.bus ?? new InProcessChannels(),
    control: parts.control ?? new InProcessChannels(),
    runs: new ActiveRuns(),
    ...(parts.runQueue ? { runQueue: parts.runQueue } : {}),
    streams: new OpenStreams(config.executions.heartbeatMs),
    payments: parts.payments ?? paymentProviderFor(config),
    blobs: parts.blobs ?? blobStoreFor(config),
    keys: {
      sealing: deriveKey(config.signingSecret, 'sealing'),
      signing: deriveKey(config.signingSecret, 'url-signing'),
      byok: deriveKey(config.signingSecret, 'byok'),
      webhookSecrets: deriveKey(config.signingSecret, 'webhook-secrets'),
    },
    log: parts.log ?? pino({ level: 'silent' }),
  };
  return { ...ctx, webhooks: new WebhookDispatcher(ctx) };
}

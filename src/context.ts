import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { pino } from 'pino';
import type { BlobStore } from './artifacts/blob-store.js';
import { blobStoreFor } from './artifacts/blob-store-for.js';
import { type PaymentProvider, paymentProviderFor } from './billing/payment-provider.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Database, Dialect } from './db/database.js';
import type { Tables } from './db/tables.js';
import type { RunQueue } from './distributed/run-queue.js';
import { ActiveRuns } from './executions/active-runs.js';
import { type Channels, type EventBus, InProcessChannels } from './executions/bus.js';
import type { ControlMessage } from './executions/control-messages.js';
import { OpenStreams } from './executions/open-streams.js';
import { CredentialCache } from './identity/credential-cache.js';
import type { RateLimitStore } from './rate-limit/store.js';
import { deriveKey } from './secrets.js';
import { SkillRegistry } from './skills/registry.js';
import { BUILT_INS_ONLY, type SkillSandbox } from './skills/sandbox.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';

/** What every domain function is handed: no globals, so tests swap any part. */
export interface AppContext {
  db: Kysely<Tables>;
  dialect: Dialect;
  clock: Clock;
  config: Config;
  rateLimits: RateLimitStore;
  credentials: CredentialCache;
  skills: SkillRegistry;
  /** How skills are confined on this server. */
  sandbox: SkillSandbox;
  bus: EventBus;
  /** Control-plane messages, by workspace id. */
  control: Channels<ControlMessage>;
  runs: ActiveRuns;
  /** In a cluster: where runs wait for a worker. Absent on a single node, which runs them itself. */
  runQueue?: RunQueue;
  /** Every open event stream: their keep-alive comments, and ending them at shutdown. */
  streams: OpenStreams;
  payments: PaymentProvider;
  /** Artifact file contents, by SHA-256. */
  blobs: BlobStore;
  /** Purpose-bound keys derived from the signing secret. */
  keys: { sealing: Buffer; signing: Buffer; byok: Buffer; webhookSecrets: Buffer };
  /** For work that outlives a request (an open event stream); requests log through Fastify. */
  log: FastifyBaseLogger;
  /** Sends outbound webhooks; told (`kick`) when a committed change queued one. Idle until the app starts it. */
  webhooks: WebhookDispatcher;
}

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

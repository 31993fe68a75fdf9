import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { Dialect } from './db/database.js';
import type { Tables } from './db/tables.js';
import type { Mailer } from './mail/mailer.js';
import type { BlobStore } from './ports/blob-store.js';
import type { CallerCache } from './ports/callers.js';
import type { Channels, ControlMessage, EventBus } from './ports/channels.js';
import type { PaymentProvider } from './ports/payments.js';
import type { RateLimitStore } from './ports/rate-limits.js';
import type { RunLife } from './ports/run-life.js';
import type { ClearingQueue, RunQueue, RunRegistry } from './ports/runs.js';
import type { SkillSandbox, WarmSupply } from './ports/sandbox.js';
import type { SkillCatalog } from './ports/skills.js';
import type { HeartbeatRegistry, StreamRegistry } from './ports/streams.js';
import type { ThreadRef } from './ports/thread-records.js';

/**
 * The ports every domain function is handed, and nothing that builds them: each part is
 * named by an interface of src/ports/ (or declared here), which the classes of the features
 * implement and compose.ts assembles. So this module sits below every feature that takes a
 * context, and imports none of them.
 */

/** What every domain function is handed: no globals, so tests swap any part. */
export interface AppContext {
  db: Kysely<Tables>;
  dialect: Dialect;
  clock: Clock;
  config: Config;
  rateLimits: RateLimitStore;
  credentials: CallerCache;
  skills: SkillCatalog;
  /** How skills are confined on this server. */
  sandbox: SkillSandbox;
  /** Agent-run computers started ahead of need; absent where this server cannot give a computer. */
  computers: WarmSupply | undefined;
  /** Script-skill sandboxes started ahead of need; absent without bubblewrap. */
  scripts: WarmSupply | undefined;
  /** What ended runs leave to clear away (their scratch folders), cleared after their ends are stored. */
  clearings: ClearingQueue;
  bus: EventBus;
  /** Control-plane messages, by workspace id. */
  control: Channels<ControlMessage>;
  runs: RunRegistry;
  /** In a cluster: where runs wait for a worker. Absent on a single node, which runs them itself. */
  runQueue?: RunQueue;
  /** Every open event stream: their keep-alive comments, and ending them at shutdown. */
  streams: StreamRegistry;
  payments: PaymentProvider;
  /** Outgoing mail; absent when the operator configured none (SMTP_URL). */
  mailer: Mailer | undefined;
  /** Artifact file contents, by SHA-256. */
  blobs: BlobStore;
  /** Purpose-bound keys derived from the signing secret. */
  keys: { sealing: Buffer; signing: Buffer; byok: Buffer; webhookSecrets: Buffer };
  /** For work that outlives a request (an open event stream); requests log through Fastify. */
  log: FastifyBaseLogger;
  /** Sends outbound webhooks; told (`kick`) when a committed change queued one. Idle until the background work (background.ts) starts it. */
  webhooks: Webhooks;
  /** A run's life as events (started, executing, completed, failed, stopped, handed over), which the parts above runs subscribe to in compose.ts. */
  runLife: RunLife;
  /** This node's agent-thread turns; a test swaps the agent by giving a context turns of its own. */
  threadTurns: ThreadTurns;
  /** The 25 s heartbeat comments of this node's open thread streams. */
  threadHeartbeats: HeartbeatRegistry;
}

/** This node's agent-thread turns (threads/thread-turns.ts): one drive of turns per thread at most. */
export interface ThreadTurns {
  /**
   * Asks for a turn of the thread's agent, paid by `thread.userId` (whose message it
   * answers): now, or once the turn running ends. Returns at once; the turn runs in the
   * background, not tied to a request.
   */
  wake(ctx: AppContext, thread: ThreadRef): void;
  /** At shutdown: no new turns; the running ones are stopped and end (with their turn_end). */
  stop(): Promise<void>;
  /** Resolves once no turn runs on this node. */
  settled(): Promise<void>;
}

/** How an attempt left its delivery: sent, waiting for a retry, or out of retries. */
export type AttemptOutcomeKind = 'delivered' | 'retrying' | 'failed';

/** Outbound webhook delivery (webhooks/dispatcher.ts). */
export interface Webhooks {
  start(): void;
  /** Looks for due deliveries now; does nothing until started. */
  kick(): void;
  /** Tells `observer` how each attempt ended (the metrics count them). */
  observe(observer: (outcome: AttemptOutcomeKind) => void): void;
  /** Stops looking and waits for the attempts under way. */
  close(): Promise<void>;
}

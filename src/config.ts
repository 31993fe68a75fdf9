import type { ModelPrices } from './model-prices.js';

/**
 * What the settings are: one typed object read once at start from the environment
 * (config-load.ts); every part is handed it through the context.
 */

export interface Config {
  host: string;
  port: number;
  /** Base URL that people and clients reach this server on; used in every URL we hand out. */
  publicUrl: string;
  /** Base URL of published artifact files; the server's own unless they get an origin of their own. */
  publicFilesUrl: string;
  dataDir: string;
  /** Where artifact blobs live: a folder (in a cluster, one every node mounts) or an S3-compatible bucket. */
  blobs: BlobSettings;
  /** Published artifact copies, for a folder store; with S3 published files are served from the blobs. */
  publicDir: string;
  /** The built web app (`npm run build` writes it); /app/ explains how to build it when absent. */
  webAppDir: string;
  /** Absent: the embedded SQLite database in dataDir. */
  databaseUrl: string | undefined;
  /** Set: distributed mode (DESIGN §12): announcements, rate limits and cache invalidations go through Redis. */
  redisUrl: string | undefined;
  signingSecret: string;
  /** This node's name in a cluster: the runs it starts are its own, and only it recovers them. */
  nodeId: string;
  /** How long a node of a cluster may go without a heartbeat before its runs are ended by another. */
  nodeTimeoutMs: number;
  /**
   * What a node of a cluster does: `api` answers requests and queues runs, `worker` executes
   * queued runs, `all` both. Without REDIS_URL there is no queue: one process does everything.
   */
  nodeRole: NodeRole;
  /** Put before every key and channel this cluster uses in Redis, so clusters can share one. */
  redisPrefix: string;
  /** How long a worker may fail to renew a queued run's lock before the run counts as stalled. */
  runStallMs: number;
  /**
   * Bytes one run's checkpoints may store in all (a cluster's agent runs): past it the run
   * stops keeping checkpoints and can no longer go on on another worker.
   */
  checkpointBytesPerRun: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Which answers get an access line: all, only refusals and failures (status 400 and up), or none. */
  accessLog: 'all' | 'errors' | 'off';
  /** Outgoing mail (password reset links); absent: this server sends no mail. */
  mail: MailSettings | undefined;
  /** production turns off what is only safe on a local install: the test-mode checkout. */
  environment: 'development' | 'production';
  trustProxy: boolean;
  bodyLimitBytes: number;
  /** Largest input file one upload may store (DESIGN §15); the body is read only this far. */
  fileUploadLimitBytes: number;
  /**
   * What one workspace may keep of what people upload: bytes of input files and of skills
   * installed from folders together, input files, and installed skills (issue 50, item 3).
   */
  workspaceStorage: { bytes: number; files: number; skills: number };
  /** How long a file stays after the last run it was given was created; then the sweep deletes it. */
  attachedFileRetentionMs: number;
  /**
   * How long a client has to send a whole request, headers and body. Past it the request is
   * answered 408 and its connection closed: a body trickled in a byte at a time holds nothing.
   */
  requestTimeoutMs: number;
  appDownloadUrl: string;
  passwordHashLogN: number;
  authTokenTtlDays: number;
  /** How long a workspace invitation's link works. */
  invitationTtlDays: number;
  /** How long a resolved credential is trusted without asking the database (0: never). */
  credentialCacheSeconds: number;
  /** Whether an OAuth access token's scopes (read, write, admin) limit what it may do; recorded only when false. */
  oauthEnforceScopes: boolean;
  heartbeat: { activeSeconds: number; idleSeconds: number };
  /** A folder of extra skills beside the built-in ones. */
  skillsDir: string | undefined;
  /** Base URL of signed stream URLs; this server's own by default. */
  streamUrl: string;
  /** Base URL (ws:// or wss://) of control-plane WebSocket URLs. */
  eventsWsUrl: string;
  controlPingMs: number;
  executions: {
    timeoutMs: number;
    /** Memory of a script skill's run, or an agent run without a computer. */
    memoryMb: number;
    /**
     * Memory of a run's computer (an agent run's, the threads assistant's): sized for real
     * work, and holding the writable space too, whose pages are memory.
     */
    computerMemoryMb: number;
    outputLimitBytes: number;
    inputLimitBytes: number;
    heartbeatMs: number;
    /** CPU seconds one run may use. */
    cpuSeconds: number;
    /** Longest line a skill may send its runner. */
    lineLimitBytes: number;
    /** Bytes of events one run may stream (each event counts its line plus a fixed overhead). */
    eventBytesPerRun: number;
    /** Files one run may write. */
    outputFileLimit: number;
    /** Processes a run's sandbox may hold at once. */
    processLimit: number;
    /**
     * Hosts skills may reach (through the egress proxy, and web_fetch): names, or `*.domain`
     * for its subdomains; the package registries are in it when the operator allows them.
     * Empty: no network.
     */
    allowedHosts: string[];
    /** Bytes one run's network connections may carry, both ways together (the egress proxy's quota). */
    networkBytesPerRun: number;
    /** How long one of a run's network connections may stay open, however busy. */
    networkConnectionSeconds: number;
    /**
     * Bytes the computer's writable folders (/workspace, /tmp and /dev/shm together) may hold.
     * Below the computer's memory limit: they are tmpfs, and their pages count as its memory.
     */
    workspaceLimitBytes: number;
    /** How skills are confined: see src/sandbox/sandbox.ts. */
    sandbox: SandboxSetting;
    /** Running executions one user may have at once, across workspaces. */
    runsPerUser: number;
    /** Runs this process executes at once. */
    runsPerServer: number;
    /** Agent-run computers kept started ahead of need (computer/computer-pool.ts); 0 starts each with its run. */
    computerPoolSize: number;
    /**
     * Where computer images are kept (`skillet computer build`): the one its `current` link
     * names is the computer's root filesystem. `required`: the operator named the folder, so a
     * missing image stops the start instead of falling back to the host's folders.
     */
    computerImage: { dir: string; required: boolean };
    /** Script-skill sandboxes kept started ahead of need (skills/script-pool.ts); 0 starts each with its run. */
    scriptPoolSize: number;
  };
  agent: AgentSettings;
  threads: {
    /** Thread turns one person may have asked for or running at once, across workspaces and nodes. */
    turnsPerUser: number;
  };
  billing: {
    /** Ds granted to each new user (as a purchase transaction). */
    signupCredits: number;
    /** The app's URL scheme, for the payment return pages' deep links. */
    appScheme: string;
    /** Absent: the local test-mode checkout. */
    stripe: { secretKey: string; webhookSecret: string; publishableKey: string; apiUrl: string } | null;
  };
  /** Operations (issue 18): how long SIGTERM waits for runs, the readiness probe, the metrics endpoint. */
  ops: OpsSettings;
  /** Outbound webhooks (issue 18): where they may go, how long an attempt waits, when it is tried again. */
  webhooks: WebhookSettings;
  rateLimits: {
    executionsPerMinute: number;
    restPerMinute: number;
    /** MCP requests per minute per credential (or per client IP without one), apart from the REST limit. */
    mcpPerMinute: number;
    /** Signed payment-webhook deliveries per minute per client address, apart from the REST limit. */
    webhookPerMinute: number;
    activationCreateIntervalMs: number;
    pollBurst: number;
    pollPerSecond: number;
    pollIntervalSeconds: number;
    /** Failed sign-ins one account (email) may have per window before it is refused for the rest of it. */
    loginFailures: number;
    loginWindowMs: number;
  };
}

/** A model vendor's house account: its key (absent: no house calls), where it is, its default model. */
export interface ProviderSettings {
  apiKey: string | undefined;
  baseUrl: string;
  model: string;
}

export interface AgentSettings {
  anthropic: ProviderSettings;
  /** OpenAI, or any server that speaks its Chat Completions API (Ollama, vLLM, llama.cpp). */
  openai: ProviderSettings;
  /** Retries of a failed model call (429, 5xx, a dropped connection), with the SDKs' backoff. */
  maxRetries: number;
  /** How long one model call may take. */
  timeoutMs: number;
  /** Model calls one run may make. */
  maxTurns: number;
  /** Output tokens one model call may produce. */
  maxOutputTokens: number;
  /** Input plus output tokens one run may use. */
  maxRunTokens: number;
  /** Tokens a model may think with per call (Anthropic extended thinking); 0: off. */
  thinkingBudget: number;
  prices: ModelPrices;
}

export type Env = Record<string, string | undefined>;

export interface WebhookSettings {
  /** Whether endpoints may be on loopback, private, link-local or other non-public addresses. */
  allowPrivateAddresses: boolean;
  /** How long one attempt waits for the receiver's answer. */
  timeoutMs: number;
  /** The waits before each retry after a failed first attempt; its length is the number of retries. */
  retryDelaysMs: number[];
  /** How often a node looks for deliveries that have fallen due. */
  pollMs: number;
  /** How long a message and its delivery log are kept once no delivery of it is pending. */
  logRetentionMs: number;
}

export interface OpsSettings {
  /** How long a node told to stop lets its running runs finish before it stops the rest. */
  shutdownGraceMs: number;
  /** How long one readiness check may take before it counts as failed. */
  readyCheckTimeoutMs: number;
  /** Prometheus metrics: on a port of their own, at /metrics behind a bearer token, both, or neither (off). */
  metrics: { port: number | undefined; host: string; token: string | undefined };
}

/** An S3 bucket (AWS, or MinIO, R2 and the like at `endpoint`); no credentials: the SDK's own chain. */
export interface S3BlobSettings {
  kind: 's3';
  bucket: string;
  /** Put before every key; empty, or ends with `/`. */
  prefix: string;
  region: string;
  endpoint: string | undefined;
  forcePathStyle: boolean;
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
}

export type BlobSettings = { kind: 'folder'; dir: string } | S3BlobSettings;

/** auto: bubblewrap when it works here; bwrap: refuse to start without it; none: the permission model alone. */
export type SandboxSetting = 'auto' | 'bwrap' | 'none';

export class ConfigError extends Error {}

/**
 * SKILL_NETWORK_BYTES_PER_RUN: what the computer's writable space holds by default, so
 * anything a run can keep it can fetch, with room to spare, and no run streams for ever.
 */
export const DEFAULT_NETWORK_BYTES_PER_RUN = 2 * 1024 ** 3;

/** SKILL_NETWORK_CONNECTION_SECONDS: a large download's time, far short of a run's. */
export const DEFAULT_NETWORK_CONNECTION_SECONDS = 600;

export interface MailSettings {
  /** smtp:// or smtps://, with any user and password in it (nodemailer reads it as is). */
  smtpUrl: string;
  from: string;
}

/** Reached by pip and npm when SKILL_ALLOW_PACKAGE_REGISTRIES is on. */
export const PACKAGE_REGISTRY_HOSTS = ['pypi.org', 'files.pythonhosted.org', 'registry.npmjs.org'] as const;

export const NODE_ROLES = ['all', 'api', 'worker'] as const;

export type NodeRole = (typeof NODE_ROLES)[number];

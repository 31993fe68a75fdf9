import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { type ModelPrices, parseModelPrices } from './model-prices.js';
import { PROJECT_ROOT } from './paths.js';
import { randomBase64Url } from './secrets.js';

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
const SANDBOX_SETTINGS = ['auto', 'bwrap', 'none'] as const;

export class ConfigError extends Error {}

/**
 * SKILL_NETWORK_BYTES_PER_RUN: what the computer's writable space holds by default, so
 * anything a run can keep it can fetch, with room to spare, and no run streams for ever.
 */
export const DEFAULT_NETWORK_BYTES_PER_RUN = 2 * 1024 ** 3;
/** SKILL_NETWORK_CONNECTION_SECONDS: a large download's time, far short of a run's. */
export const DEFAULT_NETWORK_CONNECTION_SECONDS = 600;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const ENVIRONMENTS = ['development', 'production'] as const;

function read(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['1', 'true', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'no'].includes(raw)) return false;
  throw new ConfigError(`${name} must be true or false (got "${raw}")`);
}

function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = read(env, name) ?? fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL (got "${raw}")`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http or https URL (got "${raw}")`);
  }
  return raw.replace(/\/+$/, '');
}

export interface MailSettings {
  /** smtp:// or smtps://, with any user and password in it (nodemailer reads it as is). */
  smtpUrl: string;
  from: string;
}

function mailSettings(env: Env): MailSettings | undefined {
  const smtpUrl = read(env, 'SMTP_URL');
  if (smtpUrl === undefined) return undefined;
  if (!/^smtps?:\/\/[^\s]+$/.test(smtpUrl)) throw new ConfigError('SMTP_URL must be an smtp:// or smtps:// URL');
  const from = read(env, 'MAIL_FROM') ?? 'Skillet <skillet@localhost>';
  if (!/@/.test(from)) throw new ConfigError(`MAIL_FROM must be an email address (got "${from}")`);
  return { smtpUrl, from };
}

function wsUrl(env: Env, name: string, fallback: string): string {
  const raw = read(env, name) ?? fallback;
  if (!/^wss?:\/\/[^\s]+$/.test(raw)) throw new ConfigError(`${name} must be a ws:// or wss:// URL (got "${raw}")`);
  return raw.replace(/\/+$/, '');
}

function sandboxSetting(env: Env): SandboxSetting {
  const raw = read(env, 'SKILL_SANDBOX') ?? 'auto';
  const setting = SANDBOX_SETTINGS.find((candidate) => candidate === raw);
  if (!setting) throw new ConfigError(`SKILL_SANDBOX must be one of ${SANDBOX_SETTINGS.join(', ')} (got "${raw}")`);
  return setting;
}

/** Reached by pip and npm when SKILL_ALLOW_PACKAGE_REGISTRIES is on. */
export const PACKAGE_REGISTRY_HOSTS = ['pypi.org', 'files.pythonhosted.org', 'registry.npmjs.org'] as const;
const HOST_NAME = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** SKILL_ALLOWED_HOSTS, lower-cased, plus the registries when they are allowed. */
function allowedHosts(env: Env): string[] {
  const hosts = (read(env, 'SKILL_ALLOWED_HOSTS') ?? '')
    .split(',')
    .map((entry) => entry.trim().toLowerCase().replace(/\.$/, ''))
    .filter((entry) => entry !== '');
  const bad = hosts.find((entry) => entry.length > 253 || !HOST_NAME.test(entry));
  if (bad !== undefined) {
    throw new ConfigError(
      `SKILL_ALLOWED_HOSTS must be host names separated by commas, such as api.example.com or *.example.com, without a scheme, port or path (got "${bad}")`,
    );
  }
  if (hosts.length > 1000) throw new ConfigError('SKILL_ALLOWED_HOSTS may name at most 1000 hosts');
  const registries = boolean(env, 'SKILL_ALLOW_PACKAGE_REGISTRIES', false) ? PACKAGE_REGISTRY_HOSTS : [];
  return [...new Set([...hosts, ...registries])];
}

function databaseUrl(env: Env): string | undefined {
  const raw = read(env, 'DATABASE_URL');
  if (raw === undefined) return undefined;
  if (!/^postgres(ql)?:\/\//.test(raw)) {
    throw new ConfigError('DATABASE_URL must be a postgres:// URL (leave it unset for SQLite)');
  }
  return raw;
}

function logLevel(env: Env): Config['logLevel'] {
  const raw = read(env, 'LOG_LEVEL') ?? 'info';
  const level = LOG_LEVELS.find((candidate) => candidate === raw);
  if (!level) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got "${raw}")`);
  return level;
}

function accessLog(env: Env): Config['accessLog'] {
  const raw = read(env, 'ACCESS_LOG') ?? 'errors';
  if (raw !== 'all' && raw !== 'errors' && raw !== 'off')
    throw new ConfigError(`ACCESS_LOG must be all, errors or off (got "${raw}")`);
  return raw;
}

function environment(env: Env): Config['environment'] {
  const raw = read(env, 'SKILLET_ENV') ?? 'development';
  const found = ENVIRONMENTS.find((candidate) => candidate === raw);
  if (!found) throw new ConfigError(`SKILLET_ENV must be one of ${ENVIRONMENTS.join(', ')} (got "${raw}")`);
  return found;
}

/** A configured secret wins; otherwise one is generated once and kept in the data folder. */
/** NODE_ID, or one made once and kept in the data folder, so a restarted node knows its runs. */
async function nodeId(env: Env, dataDir: string): Promise<string> {
  const configured = read(env, 'NODE_ID');
  if (configured !== undefined) {
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(configured))
      throw new ConfigError('NODE_ID must be 1-64 letters, digits, dots, dashes or underscores');
    return configured;
  }
  const file = path.join(dataDir, 'node-id');
  await writeFile(file, `${randomUUID()}\n`, { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return (await readFile(file, 'utf8')).trim();
}

async function signingSecret(env: Env, dataDir: string): Promise<string> {
  const configured = read(env, 'SIGNING_SECRET');
  if (configured !== undefined) {
    if (configured.length < 32) throw new ConfigError('SIGNING_SECRET must be at least 32 characters');
    return configured;
  }
  const file = path.join(dataDir, 'signing-secret');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const secret = randomBase64Url(48);
  await writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch(async (error) => {
    // Another process started at the same moment and wrote it first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  });
  return (await readFile(file, 'utf8')).trim();
}

function appScheme(env: Env): string {
  const raw = read(env, 'APP_SCHEME') ?? 'skillet';
  if (!/^[a-z][a-z0-9+.-]{0,31}$/.test(raw))
    throw new ConfigError(`APP_SCHEME must be a URL scheme such as skillet (got "${raw}")`);
  return raw;
}

/** Stripe is on when a secret key is set; then the webhook secret is required too. */
function stripeSettings(env: Env): Config['billing']['stripe'] {
  const secretKey = read(env, 'STRIPE_SECRET_KEY');
  if (secretKey === undefined) return null;
  const webhookSecret = read(env, 'STRIPE_WEBHOOK_SECRET');
  if (webhookSecret === undefined) throw new ConfigError('STRIPE_WEBHOOK_SECRET must be set when STRIPE_SECRET_KEY is');
  return {
    secretKey,
    webhookSecret,
    publishableKey: read(env, 'STRIPE_PUBLISHABLE_KEY') ?? '',
    apiUrl: httpUrl(env, 'STRIPE_API_URL', 'https://api.stripe.com'),
  };
}

function agentSettings(env: Env): AgentSettings {
  let prices: ModelPrices;
  try {
    prices = parseModelPrices(read(env, 'MODEL_PRICES'));
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const maxOutputTokens = integer(env, 'AGENT_MAX_OUTPUT_TOKENS', 8192, 16, 1_000_000);
  return {
    anthropic: {
      apiKey: read(env, 'ANTHROPIC_API_KEY'),
      baseUrl: httpUrl(env, 'ANTHROPIC_BASE_URL', 'https://api.anthropic.com'),
      model: read(env, 'ANTHROPIC_MODEL') ?? 'claude-sonnet-4-6',
    },
    openai: {
      apiKey: read(env, 'OPENAI_API_KEY'),
      baseUrl: httpUrl(env, 'OPENAI_BASE_URL', 'https://api.openai.com/v1'),
      model: read(env, 'OPENAI_MODEL') ?? 'gpt-4.1-mini',
    },
    maxRetries: integer(env, 'MODEL_MAX_RETRIES', 2, 0, 10),
    timeoutMs: integer(env, 'MODEL_TIMEOUT_MS', 10 * 60_000, 100, 3_600_000),
    maxTurns: integer(env, 'AGENT_MAX_TURNS', 25, 1, 1000),
    maxOutputTokens,
    maxRunTokens: integer(env, 'AGENT_MAX_RUN_TOKENS', 2_000_000, 1000, 1_000_000_000),
    // Thinking needs room below the output cap for the answer itself.
    thinkingBudget: integer(env, 'AGENT_THINKING_BUDGET', 0, 0, Math.max(0, maxOutputTokens - 1)),
    prices,
  };
}

export const NODE_ROLES = ['all', 'api', 'worker'] as const;
export type NodeRole = (typeof NODE_ROLES)[number];

function nodeRole(env: Env): NodeRole {
  const raw = read(env, 'NODE_ROLE') ?? 'all';
  const found = NODE_ROLES.find((candidate) => candidate === raw);
  if (!found) throw new ConfigError(`NODE_ROLE must be one of ${NODE_ROLES.join(', ')} (got "${raw}")`);
  return found;
}

/** BLOB_S3_<name>, or S3_<name> as DESIGN §12 first named them. */
function s3Setting(env: Env, name: string): string | undefined {
  return read(env, `BLOB_S3_${name}`) ?? read(env, `S3_${name}`);
}

/** A bucket when BLOB_S3_BUCKET is set, otherwise the folder BLOB_DIR (DATA_DIR/blobs). */
function blobSettings(env: Env, dataDir: string): BlobSettings {
  const bucket = s3Setting(env, 'BUCKET');
  if (bucket === undefined) return { kind: 'folder', dir: path.resolve(read(env, 'BLOB_DIR') ?? path.join(dataDir, 'blobs')) };
  if (read(env, 'BLOB_DIR') !== undefined) throw new ConfigError('Set BLOB_DIR or BLOB_S3_BUCKET, not both');
  const endpointName = read(env, 'BLOB_S3_ENDPOINT') === undefined ? 'S3_ENDPOINT' : 'BLOB_S3_ENDPOINT';
  const endpoint = read(env, endpointName) === undefined ? undefined : httpUrl(env, endpointName, '');
  const prefix = s3Setting(env, 'PREFIX') ?? '';
  if (prefix.startsWith('/') || prefix.includes('//'))
    throw new ConfigError(`BLOB_S3_PREFIX must be a key prefix such as skillet/blobs/ (got "${prefix}")`);
  const accessKeyId = s3Setting(env, 'ACCESS_KEY_ID');
  const secretAccessKey = s3Setting(env, 'SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
    throw new ConfigError('BLOB_S3_ACCESS_KEY_ID and BLOB_S3_SECRET_ACCESS_KEY go together (or set neither for the SDK chain)');
  return {
    kind: 's3',
    bucket,
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
    region: s3Setting(env, 'REGION') ?? read(env, 'AWS_REGION') ?? 'us-east-1',
    endpoint,
    // MinIO and most stand-ins answer on one host name, with the bucket in the path.
    forcePathStyle: boolean(env, 'BLOB_S3_FORCE_PATH_STYLE', endpoint !== undefined),
    credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
  };
}

function opsSettings(env: Env): OpsSettings {
  const token = read(env, 'METRICS_TOKEN');
  if (token !== undefined && token.length < 16) throw new ConfigError('METRICS_TOKEN must be at least 16 characters');
  const port = read(env, 'METRICS_PORT') === undefined ? undefined : integer(env, 'METRICS_PORT', 0, 0, 65535);
  return {
    shutdownGraceMs: integer(env, 'SHUTDOWN_GRACE_SECONDS', 30, 0, 24 * 3600) * 1000,
    readyCheckTimeoutMs: integer(env, 'READY_CHECK_TIMEOUT_MS', 2000, 10, 60_000),
    metrics: { port, host: read(env, 'METRICS_HOST') ?? '127.0.0.1', token },
  };
}

/** WEBHOOK_RETRY_SCHEDULE: seconds before each retry, comma-separated (Standard Webhooks' usual schedule by default). */
function retryDelays(env: Env): number[] {
  const value = read(env, 'WEBHOOK_RETRY_SCHEDULE') ?? '5,300,1800,7200,18000,36000,36000';
  const delays = value.split(',').map((part) => part.trim());
  if (delays.length > 20 || !delays.every((part) => /^[0-9]{1,6}$/.test(part))) {
    throw new ConfigError('WEBHOOK_RETRY_SCHEDULE must be at most 20 comma-separated whole numbers of seconds');
  }
  return delays.map((seconds) => Number(seconds) * 1000);
}

function webhookSettings(env: Env): WebhookSettings {
  return {
    allowPrivateAddresses: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    retryDelaysMs: retryDelays(env),
    pollMs: integer(env, 'WEBHOOK_POLL_MS', 1000, 10, 3_600_000),
    logRetentionMs: integer(env, 'WEBHOOK_LOG_RETENTION_DAYS', 30, 1, 3650) * 86_400_000,
  };
}

function redisPrefix(env: Env): string {
  const value = read(env, 'REDIS_PREFIX') ?? 'skillet:';
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(value)) {
    throw new ConfigError('REDIS_PREFIX must be 1-64 letters, digits, dots, dashes, underscores or colons');
  }
  return value;
}

function redisUrl(env: Env): string | undefined {
  const value = read(env, 'REDIS_URL');
  if (value === undefined) return undefined;
  if (!/^rediss?:\/\//.test(value)) throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL');
  return value;
}

/**
 * The computer's memory and writable space (issue 49: sized after the anchor's 5 GiB of
 * each). The space is in memory and counts toward the limit, so it must be below it: one as
 * large would leave the run's programs nothing once it is full.
 */
function computerSizes(env: Env): { computerMemoryMb: number; workspaceLimitBytes: number } {
  const memoryMb = integer(env, 'COMPUTER_MEMORY_MB', 4096, 16, 262_144);
  const bytes = integer(env, 'SKILL_WORKSPACE_LIMIT_BYTES', 2 * 1024 ** 3, 1024 * 1024, 64 * 1024 ** 3);
  if (bytes >= memoryMb * 1024 * 1024) {
    throw new ConfigError(
      `SKILL_WORKSPACE_LIMIT_BYTES (${bytes}) must be below COMPUTER_MEMORY_MB (${memoryMb} MiB): the computer's ` +
        'writable folders are held in memory and count toward that limit. Lower the first or raise the second.',
    );
  }
  return { computerMemoryMb: memoryMb, workspaceLimitBytes: bytes };
}

/** Reads and validates every setting. The only reader of process.env is whoever calls this. */
export async function loadConfig(env: Env): Promise<Config> {
  const host = read(env, 'HOST') ?? '127.0.0.1';
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const reachableHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const publicUrl = httpUrl(env, 'PUBLIC_URL', `http://${reachableHost}:${port}`);
  const dataDir = path.resolve(read(env, 'DATA_DIR') ?? 'data');
  await mkdir(dataDir, { recursive: true });

  return {
    host,
    port,
    publicUrl,
    publicFilesUrl: httpUrl(env, 'PUBLIC_FILES_URL', publicUrl),
    dataDir,
    blobs: blobSettings(env, dataDir),
    publicDir: path.resolve(read(env, 'PUBLIC_DIR') ?? path.join(dataDir, 'public')),
    webAppDir: path.resolve(read(env, 'WEB_APP_DIR') ?? path.join(PROJECT_ROOT, 'dist', 'web')),
    databaseUrl: databaseUrl(env),
    redisUrl: redisUrl(env),
    signingSecret: await signingSecret(env, dataDir),
    nodeId: await nodeId(env, dataDir),
    nodeTimeoutMs: integer(env, 'NODE_TIMEOUT_SECONDS', 30, 2, 3600) * 1000,
    nodeRole: nodeRole(env),
    runStallMs: integer(env, 'RUN_STALL_SECONDS', 30, 1, 3600) * 1000,
    redisPrefix: redisPrefix(env),
    logLevel: logLevel(env),
    accessLog: accessLog(env),
    mail: mailSettings(env),
    environment: environment(env),
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 256 * 1024, 1024, 64 * 1024 * 1024),
    checkpointBytesPerRun: integer(env, 'CHECKPOINT_BYTES_PER_RUN', 256 * 1024 * 1024, 0, 1024 ** 4),
    fileUploadLimitBytes: integer(env, 'FILE_UPLOAD_LIMIT', 50 * 1024 * 1024, 1, 1024 * 1024 * 1024 * 1024),
    workspaceStorage: {
      bytes: integer(env, 'WORKSPACE_STORAGE_LIMIT_BYTES', 1024 ** 3, 0, 1024 ** 5),
      files: integer(env, 'WORKSPACE_FILE_LIMIT', 1000, 0, 10_000_000),
      skills: integer(env, 'WORKSPACE_SKILL_LIMIT', 100, 0, 100_000),
    },
    attachedFileRetentionMs: integer(env, 'ATTACHED_FILE_RETENTION_DAYS', 30, 1, 36_500) * 24 * 3_600_000,
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_SECONDS', 60, 1, 3600) * 1000,
    appDownloadUrl: httpUrl(env, 'APP_DOWNLOAD_URL', `${publicUrl}/activate`),
    passwordHashLogN: integer(env, 'PASSWORD_HASH_LOG_N', 15, 10, 20),
    authTokenTtlDays: integer(env, 'AUTH_TOKEN_TTL_DAYS', 30, 1, 3650),
    invitationTtlDays: integer(env, 'INVITATION_TTL_DAYS', 7, 1, 90),
    credentialCacheSeconds: integer(env, 'CREDENTIAL_CACHE_SECONDS', 10, 0, 300),
    oauthEnforceScopes: boolean(env, 'OAUTH_ENFORCE_SCOPES', false),
    heartbeat: {
      activeSeconds: integer(env, 'HEARTBEAT_ACTIVE_SECONDS', 300, 1, 86_400),
      idleSeconds: integer(env, 'HEARTBEAT_IDLE_SECONDS', 7 * 86_400, 1, 365 * 86_400),
    },
    skillsDir: read(env, 'SKILLS_DIR') === undefined ? undefined : path.resolve(read(env, 'SKILLS_DIR') ?? ''),
    streamUrl: httpUrl(env, 'STREAM_URL', publicUrl),
    eventsWsUrl: wsUrl(env, 'EVENTS_WS_URL', publicUrl.replace(/^http/, 'ws')),
    controlPingMs: integer(env, 'CONTROL_PING_MS', 30_000, 10, 3_600_000),
    executions: {
      timeoutMs: integer(env, 'EXECUTION_TIMEOUT_MS', 65 * 60_000, 100, 24 * 3_600_000),
      memoryMb: integer(env, 'SKILL_MEMORY_MB', 256, 16, 16_384),
      ...computerSizes(env),
      outputLimitBytes: integer(env, 'SKILL_OUTPUT_LIMIT_BYTES', 25 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
      inputLimitBytes: 100 * 1024,
      heartbeatMs: integer(env, 'STREAM_HEARTBEAT_MS', 15_000, 10, 3_600_000),
      cpuSeconds: integer(env, 'SKILL_CPU_SECONDS', 300, 1, 86_400),
      lineLimitBytes: integer(env, 'SKILL_LINE_LIMIT_BYTES', 1024 * 1024, 1024, 64 * 1024 * 1024),
      eventBytesPerRun: integer(env, 'SKILL_EVENT_BYTES_PER_RUN', 8 * 1024 * 1024, 4096, 1024 * 1024 * 1024),
      outputFileLimit: integer(env, 'SKILL_OUTPUT_FILE_LIMIT', 10_000, 1, 1_000_000),
      processLimit: integer(env, 'SKILL_PROCESS_LIMIT', 512, 1, 4096),
      allowedHosts: allowedHosts(env),
      networkBytesPerRun: integer(env, 'SKILL_NETWORK_BYTES_PER_RUN', DEFAULT_NETWORK_BYTES_PER_RUN, 1024, 1024 ** 4),
      networkConnectionSeconds: integer(env, 'SKILL_NETWORK_CONNECTION_SECONDS', DEFAULT_NETWORK_CONNECTION_SECONDS, 1, 86_400),
      sandbox: sandboxSetting(env),
      runsPerUser: integer(env, 'RUNS_PER_USER', 2, 1, 10_000),
      runsPerServer: integer(env, 'RUNS_PER_SERVER', 2 * availableParallelism(), 1, 10_000),
      computerPoolSize: integer(env, 'COMPUTER_POOL_SIZE', 2, 0, 64),
      computerImage: {
        dir: path.resolve(read(env, 'COMPUTER_IMAGE_DIR') ?? path.join(dataDir, 'computer-image')),
        required: read(env, 'COMPUTER_IMAGE_DIR') !== undefined,
      },
      scriptPoolSize: integer(env, 'SCRIPT_POOL_SIZE', 2, 0, 64),
    },
    agent: agentSettings(env),
    threads: { turnsPerUser: integer(env, 'THREAD_TURNS_PER_USER', 2, 1, 10_000) },
    billing: {
      signupCredits: integer(env, 'SIGNUP_CREDITS', 0, 0, 1_000_000),
      appScheme: appScheme(env),
      stripe: stripeSettings(env),
    },
    ops: opsSettings(env),
    webhooks: webhookSettings(env),
    rateLimits: {
      executionsPerMinute: integer(env, 'RATE_LIMIT_EXECUTIONS_PER_MINUTE', 30, 1, 10_000_000),
      restPerMinute: integer(env, 'RATE_LIMIT_REST_PER_MINUTE', 100, 1, 10_000_000),
      mcpPerMinute: integer(env, 'RATE_LIMIT_MCP_PER_MINUTE', 60, 1, 10_000_000),
      webhookPerMinute: integer(env, 'RATE_LIMIT_WEBHOOK_PER_MINUTE', 6000, 1, 10_000_000),
      activationCreateIntervalMs: integer(env, 'RATE_LIMIT_ACTIVATION_INTERVAL_MS', 1000, 0, 3_600_000),
      pollBurst: integer(env, 'RATE_LIMIT_POLL_BURST', 5, 1, 10_000_000),
      pollPerSecond: integer(env, 'RATE_LIMIT_POLL_PER_SECOND', 1, 1, 10_000_000),
      pollIntervalSeconds: integer(env, 'ACTIVATION_POLL_INTERVAL_SECONDS', 2, 1, 60),
      loginFailures: integer(env, 'RATE_LIMIT_LOGIN_FAILURES', 10, 1, 1_000_000),
      loginWindowMs: integer(env, 'RATE_LIMIT_LOGIN_WINDOW_MS', 15 * 60_000, 1000, 24 * 3_600_000),
    },
  };
}

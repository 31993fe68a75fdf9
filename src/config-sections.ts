import { randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type AgentSettings,
  type BlobSettings,
  type Config,
  ConfigError,
  type Env,
  type OpsSettings,
  type WebhookSettings,
} from './config.js';
import { boolean, httpUrl, integer, read } from './config-env.js';
import { type ModelPrices, parseModelPrices } from './model-prices.js';
import { randomBase64Url } from './secrets.js';

/*
 * The settings that are made of several variables, or of files kept in the data folder
 * (the node's id, the signing secret).
 */

/** NODE_ID, or one made once and kept in the data folder, so a restarted node knows its runs. */
export async function nodeId(env: Env, dataDir: string): Promise<string> {
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

/** A configured secret wins; otherwise one is generated once and kept in the data folder. */
export async function signingSecret(env: Env, dataDir: string): Promise<string> {
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

/** Stripe is on when a secret key is set; then the webhook secret is required too. */
export function stripeSettings(env: Env): Config['billing']['stripe'] {
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

export function agentSettings(env: Env): AgentSettings {
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

/** BLOB_S3_<name>, or S3_<name> as DESIGN §12 first named them. */
function s3Setting(env: Env, name: string): string | undefined {
  return read(env, `BLOB_S3_${name}`) ?? read(env, `S3_${name}`);
}

/** A bucket when BLOB_S3_BUCKET is set, otherwise the folder BLOB_DIR (DATA_DIR/blobs). */
export function blobSettings(env: Env, dataDir: string): BlobSettings {
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

export function opsSettings(env: Env): OpsSettings {
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

export function webhookSettings(env: Env): WebhookSettings {
  return {
    allowPrivateAddresses: boolean(env, 'WEBHOOK_ALLOW_PRIVATE', false),
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    retryDelaysMs: retryDelays(env),
    pollMs: integer(env, 'WEBHOOK_POLL_MS', 1000, 10, 3_600_000),
    logRetentionMs: integer(env, 'WEBHOOK_LOG_RETENTION_DAYS', 30, 1, 3650) * 86_400_000,
  };
}

/**
 * The computer's memory and writable space (issue 49: sized after the anchor's 5 GiB of
 * each). The space is in memory and counts toward the limit, so it must be below it: one as
 * large would leave the run's programs nothing once it is full.
 */
export function computerSizes(env: Env): { computerMemoryMb: number; workspaceLimitBytes: number } {
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

import { mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { type Config, DEFAULT_NETWORK_BYTES_PER_RUN, DEFAULT_NETWORK_CONNECTION_SECONDS, type Env } from './config.js';
import {
  accessLog,
  allowedHosts,
  appScheme,
  boolean,
  databaseUrl,
  environment,
  httpUrl,
  integer,
  logLevel,
  mailSettings,
  nodeRole,
  read,
  redisPrefix,
  redisUrl,
  sandboxSetting,
  wsUrl,
} from './config-env.js';
import {
  agentSettings,
  blobSettings,
  computerSizes,
  nodeId,
  opsSettings,
  signingSecret,
  stripeSettings,
  webhookSettings,
} from './config-sections.js';
import { PROJECT_ROOT } from './paths.js';

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

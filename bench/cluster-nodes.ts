/**
 * The nodes of the cluster suite (bench/cluster.ts): each a real process of the built code
 * (`skillet serve`, `skillet worker`) on a PostgreSQL schema and a Redis key prefix of the
 * run's own; the services they need, and the HTTP calls a client makes to them.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { cpus } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { METRICS_TOKEN } from './metrics.js';
import { json, pinning, seedUser } from './processes.js';

const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';
const SIGNING_SECRET = 'bench-cluster-signing-secret-0123456789abcdef';
const CLI = path.join(import.meta.dirname, '..', 'src', 'cli', 'main.js');

/** Runs per second: this many clients, each its own user (one run per workspace at a time). */
export const RUN_CLIENTS = 16;

export interface Node {
  name: string;
  url: string;
  /** Its Prometheus metrics: on the API port for an API node, on a port of their own for a worker. */
  metricsUrl: string;
  process: ChildProcess;
}

/** Nodes still running when this process exits, however it exits, go with it. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function adminQuery<Row extends pg.QueryResultRow>(statement: string, values: unknown[] = []): Promise<Row[]> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    return (await admin.query<Row>(statement, values)).rows;
  } finally {
    await admin.end();
  }
}

/**
 * A fresh, migrated schema. Migrated here, once, before any node starts: nodes starting
 * together on an empty schema would each try to migrate it at once.
 */
export async function freshSchema(prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create schema ${name}`);
  const migrator = openDatabase({ kind: 'postgres', url: POSTGRES_URL, schema: name, poolSize: 1 });
  try {
    await migrateToLatest(migrator);
  } finally {
    await migrator.close();
  }
  return name;
}

/** A port free right now, so that the URLs a node hands out can name it. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const address = probe.address();
  await new Promise((resolve) => probe.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

interface NodeSettings {
  name: string;
  command: 'serve' | 'worker';
  schema: string;
  dataDir: string;
  /** Unset: embedded mode. */
  redisPrefix?: string;
  /** Settings beyond the suite's own (a payment provider, say). */
  extraEnv?: Record<string, string>;
}

export async function startNode(settings: NodeSettings): Promise<Node> {
  const { name, command, schema, dataDir, redisPrefix } = settings;
  const port = await freePort();
  const metricsPort = command === 'worker' ? await freePort() : undefined;
  const url = `http://127.0.0.1:${port}`;
  // The nodes of the cluster share their blobs, as deployed; the embedded server keeps its own.
  const shared = path.join(dataDir, redisPrefix === undefined ? name : 'cluster');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ID: name,
    NODE_ROLE: redisPrefix === undefined ? 'all' : command === 'serve' ? 'api' : 'worker',
    PORT: String(port),
    PUBLIC_URL: url,
    DATA_DIR: path.join(dataDir, name),
    BLOB_DIR: path.join(shared, 'blobs'),
    PUBLIC_DIR: path.join(shared, 'public'),
    DATABASE_URL: `${POSTGRES_URL}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    ...(redisPrefix === undefined ? {} : { REDIS_URL, REDIS_PREFIX: redisPrefix }),
    SIGNING_SECRET,
    // Production's defaults: request logs at info (their stdout is dropped here), metrics on.
    METRICS_TOKEN,
    ...(metricsPort === undefined ? {} : { METRICS_PORT: String(metricsPort) }),
    PASSWORD_HASH_LOG_N: '10',
    SIGNUP_CREDITS: '1000000',
    // Limits high enough that the run measures the work, not 429s.
    RATE_LIMIT_REST_PER_MINUTE: '10000000',
    RATE_LIMIT_EXECUTIONS_PER_MINUTE: '10000000',
    RUNS_PER_USER: '4',
    RUNS_PER_SERVER: String(RUN_CLIENTS),
    ...settings.extraEnv,
  };
  // The bench process is pinned to core 0 and children inherit that: the nodes get every
  // core back, like PostgreSQL and Redis (counted by cpus(), as availableParallelism()
  // now answers for this pinned process). Pinning the whole cluster to one core instead
  // would make a second API node worthless by construction.
  const argv = [process.execPath, CLI, command];
  const [file, ...args] = pinning ? ['taskset', '-c', `0-${cpus().length - 1}`, ...argv] : argv;
  const child = spawn(file as string, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const metricsUrl = metricsPort === undefined ? `${url}/metrics` : `http://127.0.0.1:${metricsPort}/metrics`;
  const node = { name, url, metricsUrl, process: child };
  if (command === 'serve') await waitFor(node, async () => (await fetch(`${url}/openapi.json`)).ok);
  else
    await waitFor(
      node,
      async () => (await adminQuery(`select 1 from ${schema}.cluster_nodes where node_id = $1`, [name])).length === 1,
    );
  return node;
}

async function waitFor(node: Node, ready: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 100) {
    if (node.process.exitCode !== null) throw new Error(`${node.name} exited with ${node.process.exitCode}`);
    if (await ready().catch(() => false)) return;
    await settle(100);
  }
  throw new Error(`${node.name} did not come up within 30 s`);
}

/** Stops every node this suite started, those of a start that failed halfway included. */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...running].map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const late = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(late);
    }),
  );
}

export interface User {
  apiKey: string;
}

async function api<T>(node: Node, user: User, route: string, body?: unknown): Promise<T> {
  return json<T>(`${node.url}${route}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-api-key': user.apiKey },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

export const createRun = (node: Node, user: User, input: string) =>
  api<{ id: string }>(node, user, '/api/v1/executions', { skill_slug: 'ticker', input });

export const streamUrl = async (node: Node, user: User, id: string) =>
  (await api<{ sseUrl: string }>(node, user, `/api/v1/executions/${id}/stream-token`)).sseUrl;

export const startRun = (node: Node, user: User, id: string, input: string) =>
  api(node, user, `/api/v1/executions/${id}/events`, {
    events: [{ type: 'user.message', content: [{ type: 'text', text: input }] }],
  });

export async function seedUsers(node: Node, label: string, count: number): Promise<User[]> {
  const users: User[] = [];
  for (let i = 0; i < count; i++) users.push(await seedUser(node.url, `${label}-${i}@example.test`));
  return users;
}

/** Everything under this run's Redis prefix: the queue's keys and the rate limits' counters. */
export async function dropRedisKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 500 }) as AsyncIterable<string[]>)
      if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

/** Why this machine cannot run the suite (no PostgreSQL or Redis where expected), or nothing. */
export async function missingServices(): Promise<string | undefined> {
  try {
    await adminQuery('select 1');
  } catch (error) {
    return `no PostgreSQL at ${POSTGRES_URL} (BENCH_DATABASE_URL): ${(error as Error).message}`;
  }
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  // The connection's own error says why (refused, say); the rejected connect only says closed.
  let cause: Error | undefined;
  redis.on('error', (error: Error) => {
    cause ??= error;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    return `no Redis at ${REDIS_URL} (BENCH_REDIS_URL): ${(cause ?? (error as Error)).message}`;
  } finally {
    redis.disconnect();
  }
  return undefined;
}

import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { type AppDeps, buildApp } from '../../src/app.js';
import { ManualClock } from '../../src/clock.js';
import type { Config, Env } from '../../src/config.js';
import { loadConfig } from '../../src/config-load.js';
import { PROJECT_ROOT } from '../../src/paths.js';
import { freshDatabase, type TestDatabase } from './database.js';
import { removeDataFolder, TEST_SANDBOX_SETTING } from './sandbox.js';

/** An app built as the server builds it, with its own database and a clock the test moves. */
export interface TestApp {
  app: FastifyInstance;
  config: Config;
  clock: ManualClock;
  db: TestDatabase['database'];
  /** Every log line the server wrote, as raw JSON text. */
  logs: string[];
  close(): Promise<void>;
}

/** A TestApp listening on 127.0.0.1 at `url`. */
export interface TestServer extends TestApp {
  url: string;
}

/**
 * Parts a test swaps: a bus that loses announcements, a sandbox this machine lacks, and
 * where the test's clock starts (a receiver that checks signature timestamps against its
 * own clock needs one that starts at the real time).
 */
export type ServerParts = Pick<AppDeps, 'bus' | 'sandbox'> & { clockStart?: Date };

/** Settings for tests: a cheap password hash, and the rest as shipped unless a test says otherwise. */
export const TEST_ENV: Env = {
  PASSWORD_HASH_LOG_N: '10',
  LOG_LEVEL: 'info',
  SKILLS_DIR: path.join(PROJECT_ROOT, 'test', 'skills'),
  EXECUTION_TIMEOUT_MS: '20000',
  // Most tests run priced skills without buying credits first; billing tests set 0.
  SIGNUP_CREDITS: '1000',
  SKILL_SANDBOX: TEST_SANDBOX_SETTING,
  // No warm sandboxes unless a suite asks (the hostile skills, the computer, executions): the
  // hundreds of test servers would each start and clear away four.
  COMPUTER_POOL_SIZE: '0',
  SCRIPT_POOL_SIZE: '0',
  // TEST_DISTRIBUTED=1 runs every server in distributed mode, on the machine's Redis.
  ...(process.env.TEST_DISTRIBUTED === '1' ? { REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379' } : {}),
};

/** A port free right now; the server then binds it (retrying if another process won it). */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * A real server on 127.0.0.1 with a database of its own and a clock the test moves. It
 * listens on a port chosen up front, so the URLs it hands out (stream URLs, the
 * verification page) point at itself.
 */
export async function startServer(env: Env = {}, parts: ServerParts = {}): Promise<TestServer> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnPort(env, await freePort(), parts);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) throw error;
    }
  }
}

async function startOnPort(env: Env, port: number, parts: ServerParts): Promise<TestServer> {
  const built = await buildTestApp({ ...env, PORT: String(port) }, parts);
  try {
    await built.app.listen({ host: '127.0.0.1', port });
  } catch (error) {
    await built.close();
    throw error;
  }
  return { ...built, url: `http://127.0.0.1:${port}` };
}

/**
 * The app without a listening socket, for tests that go through `app.inject`: Fastify's
 * whole request pipeline (hooks, validation, the error writer) but not Node's HTTP parser
 * nor the event stream served ahead of Fastify. URLs it hands out point at a port nothing
 * listens on.
 */
export async function buildTestApp(env: Env = {}, { clockStart, ...parts }: ServerParts = {}): Promise<TestApp> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-test-'));
  const config = await loadConfig({ ...TEST_ENV, DATA_DIR: dir, ...env });
  const testDb = await freshDatabase(dir);
  const clock = new ManualClock(clockStart);
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const app = await buildApp({
    config,
    database: testDb.database,
    clock,
    // Each server is a cluster of its own on a shared Redis.
    redisPrefix: `skillet-test:${randomUUID()}:`,
    logStream,
    ...parts,
  });
  return {
    app,
    config,
    clock,
    db: testDb.database,
    logs,
    async close() {
      await app.close();
      await testDb.drop();
      await removeDataFolder(dir);
    },
  };
}

import { connect } from 'node:net';
import { availableParallelism } from 'node:os';
import pg from 'pg';
import { configDefaults, defineConfig } from 'vitest/config';

const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** The PostgreSQL run happens only where a server answers; otherwise it is skipped, loudly. */
async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    console.warn(
      `\n[skillet] PostgreSQL is not reachable at ${postgresUrl} (${(error as Error).message}): skipping the PostgreSQL run.\n`,
    );
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Likewise for the distributed-mode run: only where a Redis answers. */
async function redisReachable(): Promise<boolean> {
  const redisUrl = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
  const reachable = await new Promise<boolean>((resolve) => {
    const socket = connect({ host: redisUrl.hostname, port: Number(redisUrl.port || 6379), timeout: 2000 });
    const settle = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.once('connect', () => settle(true));
    socket.once('error', () => settle(false));
    socket.once('timeout', () => settle(false));
  });
  if (!reachable) console.warn(`\n[skillet] Redis is not reachable at ${redisUrl.host}: skipping the distributed-mode run.\n`);
  return reachable;
}

export default defineConfig(async () => {
  const withPostgres = process.env.SKIP_POSTGRES !== '1' && (await postgresReachable());
  const withRedis = process.env.SKIP_DISTRIBUTED !== '1' && (await redisReachable());
  const integration = ['test/integration/**/*.test.ts'];
  // Domain functions over a real database, without a server: on both engines, like integration.
  const domain = ['test/domain/**/*.test.ts'];
  const postgresOnly = ['test/integration/distributed/cluster.test.ts', 'test/integration/distributed/cluster-processes.test.ts'];
  // The README walked on a fresh clone builds the whole project first: alone, at the very end.
  const readmeWalk = 'test/integration/cli/readme-walk.test.ts';
  return {
    test: {
      testTimeout: 30_000,
      hookTimeout: 30_000,
      // Vitest leaves a core free by default, which on the two cores CI has runs every file one
      // after another (48 min). Files are written to share the machine; the two projects that
      // are not (the browser's, and the faults' that starve the machine) run alone, below.
      maxWorkers: Math.max(2, availableParallelism() - 1),
      projects: [
        { extends: true as const, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
        {
          extends: true as const,
          // Nodes of a cluster share a PostgreSQL database: that file runs only in the postgres project.
          test: {
            name: 'sqlite',
            include: integration,
            exclude: [...configDefaults.exclude, ...postgresOnly, readmeWalk],
            env: { TEST_DB: 'sqlite' },
          },
        },
        { extends: true as const, test: { name: 'domain-sqlite', include: domain, env: { TEST_DB: 'sqlite' } } },
        {
          extends: true as const,
          // Headless Chromium is the suite's most load-sensitive part: it runs alone, after every
          // other project, with room for a loaded machine and one retry (counted in CI's closing line).
          test: {
            name: 'e2e',
            include: ['test/e2e/**/*.test.ts'],
            globalSetup: ['test/e2e/global-setup.ts'],
            env: { TEST_DB: 'sqlite' },
            sequence: { groupOrder: 1 },
            maxWorkers: 1,
            testTimeout: 90_000,
            retry: 1,
          },
        },
        {
          extends: true as const,
          test: { name: 'security', include: ['test/security/**/*.test.ts'], env: { TEST_DB: 'sqlite' } },
        },
        {
          extends: true as const,
          // Workflows of public Agent Skills on the computer image (issue 49), where .ci/run built one
          // (SKILLET_TEST_COMPUTER_IMAGE). LibreOffice and Chromium load the machine for seconds at a
          // time: last, on their own, so they neither crowd the timing-sensitive suites nor are crowded.
          test: {
            name: 'compat',
            include: ['test/compat/**/*.test.ts'],
            env: { TEST_DB: 'sqlite' },
            sequence: { groupOrder: 4 },
            maxWorkers: 1,
          },
        },
        {
          extends: true as const,
          // The README's commands on a fresh clone (issue 51): its first `npm start` compiles the
          // server and bundles the app, minutes on a loaded machine, so it runs alone, last.
          test: {
            name: 'readme',
            include: [readmeWalk],
            env: { TEST_DB: 'sqlite' },
            sequence: { groupOrder: 5 },
            maxWorkers: 1,
          },
        },
        {
          extends: true as const,
          // Requests derived from /openapi.json by fast-check (issue 18): one server, many seeds.
          test: { name: 'fuzz', include: ['test/fuzz/**/*.test.ts'], env: { TEST_DB: 'sqlite' } },
        },
        ...(withPostgres
          ? [
              {
                extends: true as const,
                // Connections cut and disks filled under a running service: the machine's
                // PostgreSQL (and Redis, where a file needs it); last and one file at a time,
                // since they kill and starve processes on purpose.
                test: {
                  name: 'faults',
                  include: ['test/faults/**/*.test.ts'],
                  env: { TEST_DB: 'postgres', TEST_DATABASE_URL: postgresUrl },
                  sequence: { groupOrder: 3 },
                  maxWorkers: 1,
                },
              },
            ]
          : []),
        ...(withRedis
          ? [
              {
                extends: true as const,
                // The server-level suites again, every server in distributed mode (REDIS_URL,
                // the run queue) on one node; last, so it does not crowd the timing-sensitive ones.
                // The CLI's suites are not run a third time: the CLI is a client of the API,
                // which the other suites cover in this mode.
                test: {
                  name: 'distributed',
                  include: [...integration, 'test/security/**/*.test.ts'],
                  exclude: [...configDefaults.exclude, ...postgresOnly, 'test/integration/cli/**'],
                  env: { TEST_DB: 'sqlite', TEST_DISTRIBUTED: '1' },
                  sequence: { groupOrder: 2 },
                },
              },
            ]
          : []),
        ...(withPostgres
          ? [
              {
                extends: true as const,
                test: {
                  name: 'postgres',
                  include: integration,
                  exclude: [...configDefaults.exclude, readmeWalk],
                  env: { TEST_DB: 'postgres', TEST_DATABASE_URL: postgresUrl },
                },
              },
              {
                extends: true as const,
                test: { name: 'domain-postgres', include: domain, env: { TEST_DB: 'postgres', TEST_DATABASE_URL: postgresUrl } },
              },
            ]
          : []),
      ],
    },
  };
});

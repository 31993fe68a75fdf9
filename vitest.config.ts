import pg from 'pg';
import { defineConfig } from 'vitest/config';

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

export default defineConfig(async () => {
  const withPostgres = process.env.SKIP_POSTGRES !== '1' && (await postgresReachable());
  const integration = ['test/integration/**/*.test.ts'];
  // Domain functions over a real database, without a server: on both engines, like integration.
  const domain = ['test/domain/**/*.test.ts'];
  return {
    test: {
      testTimeout: 30_000,
      hookTimeout: 30_000,
      projects: [
        { extends: true as const, test: { name: 'unit', include: ['test/unit/**/*.test.ts'] } },
        { extends: true as const, test: { name: 'sqlite', include: integration, env: { TEST_DB: 'sqlite' } } },
        { extends: true as const, test: { name: 'domain-sqlite', include: domain, env: { TEST_DB: 'sqlite' } } },
        {
          extends: true as const,
          test: { name: 'security', include: ['test/security/**/*.test.ts'], env: { TEST_DB: 'sqlite' } },
        },
        ...(withPostgres
          ? [
              {
                extends: true as const,
                test: { name: 'postgres', include: integration, env: { TEST_DB: 'postgres', TEST_DATABASE_URL: postgresUrl } },
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

import { Redis } from 'ioredis';

/** The Redis the tests use: the machine's, unless TEST_REDIS_URL names another. */
export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Like PostgreSQL in vitest.config.ts: where no Redis answers, the tests that need one are
 * skipped, loudly, with the reason.
 */
export async function redisReachable(skipping: string): Promise<boolean> {
  const probe = new Redis(TEST_REDIS_URL, { lazyConnect: true, connectTimeout: 2000, retryStrategy: () => null });
  // The connection's own error says why (ECONNREFUSED); the failed command only that it closed.
  let cause: string | undefined;
  probe.on('error', (error: Error) => {
    cause = error.message;
  });
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch (error) {
    console.warn(
      `\n[skillet] Redis is not reachable at ${TEST_REDIS_URL} (${cause ?? (error as Error).message}): skipping ${skipping}.\n`,
    );
    return false;
  } finally {
    probe.disconnect();
  }
}

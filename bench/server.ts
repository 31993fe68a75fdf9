/**
 * One server under load, in its own process so the load generator does not share its
 * event loop: `skillet` (the real app on a fresh SQLite database) or `baseline` (a bare
 * Fastify app answering the same JSON from memory). Prints its URL on the first line.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openConfiguredDatabase } from '../src/db/open-configured.js';
import { MemoryRateLimitStore } from '../src/rate-limit/store.js';

export const BASELINE_ME = {
  user: {
    id: '6f1c1b4e-2b1a-4c55-9d8e-0c1f7a1d2e3f',
    email: 'bench@example.test',
    isAdmin: false,
    personalWorkspaceId: '0d4a1f6e-5b7c-4e2a-8f3d-9a1b2c3d4e5f',
    createdAt: '2026-11-22T00:00:00.000Z',
  },
  workspace: { id: '0d4a1f6e-5b7c-4e2a-8f3d-9a1b2c3d4e5f', name: null, personal: true, role: 'owner' },
  credential: { type: 'api_key', id: '1e2d3c4b-5a69-4788-9766-554433221100' },
  tier: 'paygmode',
};

async function skillet(): Promise<string> {
  const config = await loadConfig({
    DATA_DIR: await mkdtemp(path.join(tmpdir(), 'skillet-bench-')),
    PORT: '0',
    LOG_LEVEL: 'warn',
    // Rate limiting stays on, with limits high enough that the run measures the work, not 429s.
    RATE_LIMIT_REST_PER_MINUTE: '10000000',
    RATE_LIMIT_POLL_BURST: '10000000',
    RATE_LIMIT_POLL_PER_SECOND: '100000',
    RATE_LIMIT_ACTIVATION_INTERVAL_MS: '1',
    PASSWORD_HASH_LOG_N: '10',
  });
  const database = openConfiguredDatabase(config);
  await migrateToLatest(database);
  const app = await buildApp({ config, database, clock: systemClock, rateLimits: new MemoryRateLimitStore() });
  return app.listen({ host: '127.0.0.1', port: 0 });
}

async function baseline(): Promise<string> {
  const app = Fastify({ logger: false });
  app.get('/api/v1/me', async () => BASELINE_ME);
  app.post('/api/v1/activate/poll', async (request) => {
    const body = request.body as { device_code?: unknown };
    return { status: typeof body.device_code === 'string' ? 'pending' : 'expired' };
  });
  return app.listen({ host: '127.0.0.1', port: 0 });
}

const mode = process.argv[2];
const url = await (mode === 'skillet' ? skillet() : baseline());
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(0));
process.stdout.write(`${url}\n`);

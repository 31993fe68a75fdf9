import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createAppContext } from '../../src/compose.js';
import type { Env } from '../../src/config.js';
import { loadConfig } from '../../src/config-load.js';
import type { AppContext } from '../../src/context.js';
import { MemoryRateLimitStore } from '../../src/identity/rate-limit-store.js';
import { freshDatabase } from './database.js';
import { TEST_ENV } from './server.js';

/** A domain context and the clock it reads, so a test can move time. */
export interface DomainContext {
  ctx: AppContext;
  clock: ManualClock;
}

/**
 * A test API for the domain tier: `ctx` is a context over a fresh migrated database of the
 * file's own (SQLite or PostgreSQL, as the project says), with no server and no HTTP. Tests
 * write rows with the factories in rows.ts and call domain functions with `ctx`.
 */
export function withDomain(env: Env = {}) {
  return test
    .extend('domainSettings', { scope: 'file' }, { env })
    .extend('domain', { scope: 'file' }, async ({ domainSettings }, { onCleanup }): Promise<DomainContext> => {
      const dir = await mkdtemp(path.join(tmpdir(), 'skillet-domain-'));
      const config = await loadConfig({ ...TEST_ENV, DATA_DIR: dir, ...domainSettings.env });
      const database = await freshDatabase(dir);
      const clock = new ManualClock();
      onCleanup(async () => {
        await database.drop();
        await rm(dir, { recursive: true, force: true });
      });
      return {
        ctx: createAppContext({ config, database: database.database, clock, rateLimits: new MemoryRateLimitStore() }),
        clock,
      };
    })
    .extend('ctx', { scope: 'file' }, ({ domain }) => domain.ctx)
    .extend('db', { scope: 'file' }, ({ domain }) => domain.ctx.db);
}

import { systemClock } from './clock.js';
import { composeNode } from './compose.js';
import { ConfigError } from './config.js';
import { loadConfig } from './config-load.js';
import { migrateToLatest } from './db/migrate.js';
import { openConfiguredDatabase } from './db/open-configured.js';
import { exitOnStartFailure, stopOnSignals } from './signals.js';

/**
 * The entry point of a cluster's worker (`skillet worker`): it takes runs from the queue and
 * answers no requests, so no HTTP app is built. With METRICS_PORT set it serves /metrics and
 * the probes there.
 */
async function worker(): Promise<void> {
  const config = await loadConfig({ ...process.env, NODE_ROLE: process.env.NODE_ROLE ?? 'worker' });
  if (!config.redisUrl) throw new ConfigError('a worker is a node of a cluster: set REDIS_URL (and DATABASE_URL)');
  const database = openConfiguredDatabase(config);
  await migrateToLatest(database);
  const { ctx, ops, background, warnings } = await composeNode({ config, database, clock: systemClock });
  for (const warning of warnings) ctx.log.warn(warning.fields, warning.message);
  stopOnSignals(
    {
      drain: (graceMs, cut) => background.drain(graceMs, cut),
      close: async () => {
        await background.close();
        await database.close();
      },
    },
    config.ops.shutdownGraceMs,
    ctx.log,
  );
  await ops.start();
  await background.start();
  ctx.computers?.start();
  ctx.scripts?.start();
  ctx.log.info({ nodeId: config.nodeId }, 'worker taking runs from the queue');
}

worker().catch(exitOnStartFailure);

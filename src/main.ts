import { buildApp } from './app.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig } from './config.js';
import { migrateToLatest } from './db/migrate.js';
import { openConfiguredDatabase } from './db/open-configured.js';

async function main(): Promise<void> {
  const config = await loadConfig(process.env);
  const database = openConfiguredDatabase(config);
  await migrateToLatest(database);
  const app = await buildApp({ config, database, clock: systemClock });

  let closing = false;
  // A second signal cuts the grace period short: the runs left are stopped at once.
  const cut = new AbortController();
  const shutdown = async (signal: string) => {
    if (closing) {
      app.log.warn({ signal }, 'second signal: stopping runs now');
      cut.abort();
      return;
    }
    closing = true;
    app.log.info({ signal, graceSeconds: config.ops.shutdownGraceMs / 1000 }, 'shutting down');
    await app.drain(config.ops.shutdownGraceMs, cut.signal);
    await app.close();
    await database.close();
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));

  // A worker of a cluster takes runs from the queue and answers no requests.
  if (config.redisUrl && config.nodeRole === 'worker') {
    await app.ready();
    app.log.info({ nodeId: config.nodeId }, 'worker taking runs from the queue');
  } else {
    await app.listen({ host: config.host, port: config.port });
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`Invalid configuration: ${error.message}`);
  } else {
    console.error(error);
  }
  process.exit(1);
});

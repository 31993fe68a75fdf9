import { buildApp } from './app.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig } from './config.js';
import { migrateToLatest } from './db/migrate.js';
import { openConfiguredDatabase } from './db/open-configured.js';
import { MemoryRateLimitStore } from './rate-limit/store.js';

async function main(): Promise<void> {
  const config = await loadConfig(process.env);
  const database = openConfiguredDatabase(config);
  await migrateToLatest(database);
  const app = await buildApp({ config, database, clock: systemClock, rateLimits: new MemoryRateLimitStore() });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await database.close();
  };
  process.once('SIGINT', () => void shutdown('SIGINT'));
  process.once('SIGTERM', () => void shutdown('SIGTERM'));

  await app.listen({ host: config.host, port: config.port });
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`Invalid configuration: ${error.message}`);
  } else {
    console.error(error);
  }
  process.exit(1);
});

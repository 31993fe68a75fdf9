import { buildApp } from './app.js';
import { systemClock } from './clock.js';
import { loadConfig } from './config-load.js';
import { migrateToLatest } from './db/migrate.js';
import { openConfiguredDatabase } from './db/open-configured.js';
import { portRefusal } from './port-refusal.js';
import { exitOnStartFailure, stopOnSignals } from './signals.js';

/** The entry point of a node that answers requests: a single node, or an API node of a cluster. */
async function main(): Promise<void> {
  const config = await loadConfig(process.env);
  // A worker of a cluster answers no requests: it has an entry point of its own.
  if (config.redisUrl && config.nodeRole === 'worker') {
    await import('./worker.js');
    return;
  }
  const database = openConfiguredDatabase(config);
  await migrateToLatest(database);
  const app = await buildApp({ config, database, clock: systemClock });
  stopOnSignals(
    {
      drain: (graceMs, cut) => app.drain(graceMs, cut),
      close: async () => {
        await app.close();
        await database.close();
      },
    },
    config.ops.shutdownGraceMs,
    app.log,
  );
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    // exitOnStartFailure ends the process, so what was opened above needs no closing here.
    throw portRefusal(error, { port: 'PORT', host: 'HOST' });
  }
  // A person who started it at a terminal gets one line to act on; logs stay JSON for machines.
  if (process.stdout.isTTY) process.stdout.write(`Skillet is running: open ${config.publicUrl}/app/ (Ctrl-C stops it)\n`);
  // An API node of a cluster runs nothing itself.
  if (!config.redisUrl || config.nodeRole !== 'api') app.warmSandboxes();
}

main().catch(exitOnStartFailure);

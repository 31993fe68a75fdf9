import type { FastifyBaseLogger } from 'fastify';
import { ConfigError } from './config.js';
import { PortRefusal } from './port-refusal.js';

/**
 * Stops a node on SIGINT or SIGTERM: the first signal lets runs in progress finish within
 * the grace period (`drain`), then closes; a second cuts the grace short and the runs left
 * are stopped at once.
 */
export function stopOnSignals(
  node: { drain(graceMs: number, cut: AbortSignal): Promise<void>; close(): Promise<void> },
  graceMs: number,
  log: FastifyBaseLogger,
): void {
  let closing = false;
  const cut = new AbortController();
  const shutdown = async (signal: string) => {
    if (closing) {
      log.warn({ signal }, 'second signal: stopping runs now');
      cut.abort();
      return;
    }
    closing = true;
    log.info({ signal, graceSeconds: graceMs / 1000 }, 'shutting down');
    await node.drain(graceMs, cut.signal);
    await node.close();
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

/**
 * How an entry point ends when it cannot start: a configuration mistake or a port it cannot
 * have in one line, anything else in full.
 */
export function exitOnStartFailure(error: unknown): never {
  if (error instanceof ConfigError) console.error(`Invalid configuration: ${error.message}`);
  else if (error instanceof PortRefusal) console.error(error.message);
  else console.error(error);
  process.exit(1);
}

import pg from 'pg';

/** PostgreSQL's codes for a server that ended the session (57P0x) or a connection that failed (class 08). */
const LOST_CODES = /^(57P0[123]|08...)$/;
/** What node-postgres and the socket say when the connection went away under a query. */
const LOST_MESSAGES = /Connection terminated|not queryable|ECONNRESET|ECONNREFUSED|EPIPE/;

/**
 * True when a database call failed because its connection was lost (a failover, a restart,
 * pg_terminate_backend, a cut network), not because the statement was refused: the same
 * work can be tried again on a new connection.
 */
export function isConnectionLost(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (LOST_CODES.test(code) || LOST_MESSAGES.test(code))) return true;
  return typeof message === 'string' && LOST_MESSAGES.test(message);
}

/** About half a minute in all: a failover's usual length, without holding a run forever. */
const RETRY_DELAYS_MS = [0, 50, 100, 250, 500, 1000, 2000, 4000, 8000, 15_000];

/**
 * Runs `work`, and again on a new connection each time its connection is lost, until it
 * succeeds, fails for another reason, or the retries run out. Only for work that a lost
 * connection leaves undone or that is safe to repeat: a transaction rolled back with its
 * connection, an update to a fixed value. (The one case a retry cannot see is a commit that
 * landed while its acknowledgement was lost on the wire; PostgreSQL ends a terminated
 * session only outside a commit, so that takes a network cut at that very moment.)
 */
export function retryOnConnectionLoss<T>(work: () => Promise<T>): Promise<T> {
  return retrying(work, isConnectionLost);
}

/**
 * True when the database answered a statement with an error (a full disk, a lock timeout,
 * a refusing trigger): its transaction was rolled back and wrote nothing, and the same
 * work may succeed once the cause is gone.
 */
function isRefusedByDatabase(error: unknown): boolean {
  // A server ending the session (57P01) is a DatabaseError too, but a lost connection.
  if (isConnectionLost(error)) return false;
  if (error instanceof pg.DatabaseError) return true;
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  return typeof code === 'string' && code.startsWith('SQLITE_');
}

/**
 * For work that must land sooner or later (a run's closing events) and that retries its
 * own lost connections: tried again when the database refused it, since a refusal wrote
 * nothing. (Retrying lost connections here too would multiply the inner retries.)
 */
export function retryWhileRefused<T>(work: () => Promise<T>): Promise<T> {
  return retrying(work, isRefusedByDatabase);
}

async function retrying<T>(work: () => Promise<T>, worthRetrying: (error: unknown) => boolean): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const delay = RETRY_DELAYS_MS[attempt + 1];
      if (delay === undefined || !worthRetrying(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

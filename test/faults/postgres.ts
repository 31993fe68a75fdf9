import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { postgresUrl } from '../helpers/database.js';

/**
 * A name the server's PostgreSQL connections carry (application_name), so a test can find
 * exactly its own server's backends in pg_stat_activity: other engineers' tests use the same
 * PostgreSQL at the same time, and theirs are not ours to cut.
 */
export function applicationName(prefix: string): string {
  return `skillet-faults-${prefix}-${randomBytes(4).toString('hex')}`;
}

/** The test database URL, with every connection opened from it named `name`. */
export function namedPostgresUrl(name: string): string {
  const url = new URL(postgresUrl());
  url.searchParams.set('application_name', name);
  return url.toString();
}

/** Cuts every backend named `name`, as a failover or an operator's pg_terminate_backend would; how many. */
export async function terminateBackends(name: string): Promise<number> {
  const admin = new pg.Client({ connectionString: postgresUrl() });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ terminated: boolean }>(
      'select pg_terminate_backend(pid) as terminated from pg_stat_activity where application_name = $1 and pid <> pg_backend_pid()',
      [name],
    );
    return rows.filter((row) => row.terminated).length;
  } finally {
    await admin.end();
  }
}

/**
 * Cuts the backends named `name` again and again, `pauseMs` apart, until stopped or `rounds`
 * are done: a cut then lands at every stage of a query sooner or later, not only between
 * queries. The bound keeps a loaded machine, slow to reconnect, from being starved for good.
 * Resolves to how many backends were cut in all.
 */
export function cutRepeatedly(name: string, pauseMs: number, rounds = 200): { stop(): Promise<number> } {
  let stopping = false;
  const cutting = (async () => {
    let cuts = 0;
    for (let round = 0; round < rounds && !stopping; round++) {
      cuts += await terminateBackends(name);
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
    return cuts;
  })();
  return {
    stop() {
      stopping = true;
      return cutting;
    },
  };
}

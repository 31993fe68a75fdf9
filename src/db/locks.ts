import type { Kysely } from 'kysely';
import type { Dialect } from './database.js';
import type { Tables } from './tables.js';

/**
 * Holds a user's row until the transaction ends, so checks made on that user's other rows
 * (their running executions, their refunds) cannot be raced. SQLite runs one write
 * transaction at a time, so only PostgreSQL needs it. NO KEY UPDATE, because inserts that
 * reference the user take KEY SHARE on the row and must not wait for it.
 */
export async function lockUserRow(trx: Kysely<Tables>, dialect: Dialect, userId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await trx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
}

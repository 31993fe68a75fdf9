import type { Kysely, SelectQueryBuilder } from 'kysely';
import { dialectOf } from './database.js';
import type { Tables } from './tables.js';

/** The tables whose rows are keyed by a text `id`. */
type KeyedById = { [T in keyof Tables]: Tables[T] extends { id: string } ? T : never }[keyof Tables];

/**
 * Holds a row until the transaction ends, so checks made on rows that hang off it (a
 * user's running executions, their refunds) cannot be raced. SQLite runs one write
 * transaction at a time, so only PostgreSQL needs it. NO KEY UPDATE, because inserts that
 * reference the row take KEY SHARE on it and must not wait for it.
 */
export async function lockRow(trx: Kysely<Tables>, table: KeyedById, id: string): Promise<void> {
  if (dialectOf(trx) !== 'postgres') return;
  await trx.selectFrom(table).select('id').where('id', '=', id).forNoKeyUpdate().execute();
}

/** A read whose rows are held as lockRow holds one, for a store that reads and locks in one query. */
export function lockingRead<DB, TB extends keyof DB, O>(
  trx: Kysely<Tables>,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(trx) === 'postgres' ? query.forNoKeyUpdate() : query;
}

/**
 * A read whose rows cannot change until the transaction ends, while other readers may hold
 * them the same way (FOR SHARE): a check that what the transaction commits still holds.
 */
export function sharedRead<DB, TB extends keyof DB, O>(
  trx: Kysely<Tables>,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return dialectOf(trx) === 'postgres' ? query.forShare() : query;
}

import type { CompiledQuery, Kysely, QueryResult, SqliteDatabase } from 'kysely';
import type { Tables } from './tables.js';

/** Runs statements on SQLite's writer connection synchronously, as Kysely's driver would, minus its promises. */
export type SqliteWriter = (query: CompiledQuery) => QueryResult<unknown>;

const writers = new WeakMap<Kysely<Tables>, SqliteWriter>();

/**
 * Lets the group commit reach the connection behind `db` directly (group-commit.ts). It
 * shares Kysely's statement cache, answers as Kysely's SQLite driver does, and tells
 * `counted` of every statement, as Kysely's log does of its own. Only code holding the
 * connection's lock (`db.connection()`) may use it: between the awaits of a transaction
 * someone else has open, its statements would land in that transaction.
 */
export function attachWriter(db: Kysely<Tables>, database: SqliteDatabase, counted: (sql: string) => void): void {
  writers.set(db, ({ sql, parameters }) => {
    counted(sql);
    const prepared = database.prepare(sql);
    if (prepared.reader) return { rows: prepared.all(parameters) };
    const { changes, lastInsertRowid } = prepared.run(parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  });
}

/** The writer of a SQLite database opened by openDatabase; transactions and PostgreSQL have none. */
export function sqliteWriterOf(db: Kysely<Tables>): SqliteWriter | undefined {
  return writers.get(db);
}

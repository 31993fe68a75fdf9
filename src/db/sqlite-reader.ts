import type { Kysely } from 'kysely';
import { openSqlite, type SqlitePrepared } from './sqlite-driver.js';
import type { Tables } from './tables.js';

/** Runs read statements synchronously. */
interface DirectReader {
  /** The first row, if any. */
  first(sql: string, parameters: readonly unknown[]): unknown;
  /** Every row. */
  all(sql: string, parameters: readonly unknown[]): unknown[];
}

const readers = new WeakMap<Kysely<Tables>, DirectReader>();

/**
 * A second, read-only connection to a SQLite file. In WAL mode it reads the last committed
 * state without waiting for the writer, and, unlike the writer's connection, it never
 * sits inside a transaction another request has open. Point reads on per-request paths
 * use it directly; everything else goes through Kysely and the writer.
 */
export function attachReader(db: Kysely<Tables>, file: string): () => void {
  const connection = openSqlite(file, { readonly: true });
  connection.exec('PRAGMA busy_timeout = 5000');
  connection.exec('PRAGMA cache_size = -16000');
  const statements = new Map<string, SqlitePrepared>();
  const statementFor = (sql: string): SqlitePrepared => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = connection.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  readers.set(db, {
    first: (sql, parameters) => statementFor(sql).get(parameters),
    all: (sql, parameters) => statementFor(sql).all(parameters),
  });
  return () => {
    readers.delete(db);
    connection.close();
  };
}

/** The direct reader of a database opened with one; transactions and PostgreSQL have none. */
export function directReaderOf(db: Kysely<Tables>): DirectReader | undefined {
  return readers.get(db);
}

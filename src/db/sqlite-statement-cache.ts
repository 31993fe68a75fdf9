import type { SqliteDatabase, SqliteStatement } from 'kysely';
import type { SqliteConnection } from './sqlite-driver.js';

const MAX_STATEMENTS = 1000;

/**
 * Kysely's SQLite driver prepares every statement anew, and preparing costs more than
 * running a point lookup. Statements are keyed by their SQL text, so a query built the
 * same way reuses the compiled statement; the map is bounded, oldest out first.
 */
export function withStatementCache(database: SqliteConnection): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      statements.clear();
      database.close();
    },
    prepare(sql: string): SqliteStatement {
      let statement = statements.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        if (statements.size >= MAX_STATEMENTS) {
          const oldest = statements.keys().next().value;
          if (oldest !== undefined) statements.delete(oldest);
        }
        statements.set(sql, statement);
      }
      return statement;
    },
  };
}

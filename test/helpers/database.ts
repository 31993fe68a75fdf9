import { randomBytes } from 'node:crypto';
import path from 'node:path';
import pg from 'pg';
import { type Database, openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export type Engine = 'sqlite' | 'postgres';

export function engineUnderTest(): Engine {
  return process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite';
}

export interface TestDatabase {
  database: Database;
  drop(): Promise<void>;
}

/** A fresh, migrated database: a file in `dir` on SQLite, a schema of its own on PostgreSQL. */
export async function freshDatabase(dir: string, options: { poolSize?: number } = {}): Promise<TestDatabase> {
  if (engineUnderTest() === 'sqlite') {
    const database = openDatabase({ kind: 'sqlite', file: path.join(dir, 'test.db') });
    await migrateToLatest(database);
    return { database, drop: () => database.close() };
  }
  const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const database = openDatabase({ kind: 'postgres', url, schema, poolSize: options.poolSize ?? 10 });
  await migrateToLatest(database);
  return {
    database,
    async drop() {
      await database.close();
      const cleaner = new pg.Client({ connectionString: url });
      await cleaner.connect();
      await cleaner.query(`drop schema ${schema} cascade`);
      await cleaner.end();
    },
  };
}

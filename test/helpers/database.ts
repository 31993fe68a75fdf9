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
  const schema = await createSchema('test');
  const database = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: schema.name, poolSize: options.poolSize ?? 10 });
  await migrateToLatest(database);
  return {
    database,
    async drop() {
      await database.close();
      await schema.drop();
    },
  };
}

export function postgresUrl(): string {
  return process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
}

async function adminQuery(statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: postgresUrl() });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** A schema of its own on the test PostgreSQL server, so test files never share tables. */
export async function createSchema(prefix: string): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create schema ${name}`);
  return { name, drop: () => adminQuery(`drop schema ${name} cascade`) };
}

import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import { columnTypes } from './column-types.js';
import type { Database } from './database.js';
import { identityMigration } from './migrations/0001-identity.js';
import { executionsMigration } from './migrations/0002-executions.js';

/** Migrations are listed here in order, so they work the same from src (tests) and dist. */
function migrationsFor(database: Database): Record<string, Migration> {
  const types = columnTypes(database.dialect);
  return {
    '0001-identity': identityMigration(types),
    '0002-executions': executionsMigration(types),
  };
}

export async function migrateToLatest(database: Database): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrationsFor(database) };
  // Kysely looks for its own bookkeeping tables in any schema unless told which is ours.
  const migrator = new Migrator({
    db: database.db,
    provider,
    ...(database.schema ? { migrationTableSchema: database.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((result) => result.status === 'Success').map((result) => result.migrationName);
}

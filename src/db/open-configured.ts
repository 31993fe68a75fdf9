import path from 'node:path';
import type { Config } from '../config.js';
import { type Database, openDatabase } from './database.js';

/** The database the settings name: PostgreSQL by DATABASE_URL, else SQLite in the data folder. */
export function openConfiguredDatabase(config: Config): Database {
  return config.databaseUrl
    ? openDatabase({ kind: 'postgres', url: config.databaseUrl })
    : openDatabase({ kind: 'sqlite', file: path.join(config.dataDir, 'skillet.db') });
}

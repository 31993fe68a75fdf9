import { Kysely, type KyselyConfig, PostgresAdapter, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { openSqlite } from './sqlite-driver.js';
import { attachReader } from './sqlite-reader.js';
import { withStatementCache } from './sqlite-statement-cache.js';
import { attachWriter } from './sqlite-writer.js';
import type { Tables } from './tables.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<Tables>;
  dialect: Dialect;
  /** The PostgreSQL schema the tables live in, when not the default one. */
  schema?: string;
  /** Statements this process has sent the database since it opened it (transaction control included): for the metrics. */
  statementsSent(): number;
  /** Transactions it has committed since (for the metrics: on SQLite, whose writes go one transaction at a time, commits bound them). */
  commitsSent(): number;
  close(): Promise<void>;
}

type DatabaseTarget = { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema?: string; poolSize?: number };

/** The engine behind a database or one of its transactions (they share the adapter). */
export function dialectOf(db: Kysely<Tables>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

const PG_INT8 = 20;
const PG_TIMESTAMPTZ = 1184;

/** Both engines hand timestamps back as the ISO strings we write, and counts as numbers. */
function pgTypes(): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: string) => {
      if (oid === PG_TIMESTAMPTZ) return (value: string) => new Date(value).toISOString();
      if (oid === PG_INT8) return (value: string) => Number(value);
      return pg.types.getTypeParser(oid, format as 'text');
    }) as pg.CustomTypesConfig['getTypeParser'],
  };
}

/** The statement Kysely's drivers end a transaction with, on both engines. */
const COMMIT = 'commit';

/**
 * Counts every statement run, and the commits among them: Kysely's through its query log,
 * the SQLite writer's own (sqlite-writer.ts) as it runs them.
 */
function statementCounter(): {
  log: KyselyConfig['log'];
  count: (sql: string) => void;
  sent: () => number;
  commits: () => number;
} {
  let sent = 0;
  let commits = 0;
  const count = (sql: string) => {
    sent++;
    if (sql === COMMIT) commits++;
  };
  return {
    log: (event) => count(event.query.sql),
    count,
    sent: () => sent,
    commits: () => commits,
  };
}

export function openDatabase(target: DatabaseTarget): Database {
  const statements = statementCounter();
  if (target.kind === 'sqlite') {
    const sqlite = openSqlite(target.file, { readonly: false });
    sqlite.exec('PRAGMA journal_mode = WAL');
    sqlite.exec('PRAGMA foreign_keys = ON');
    sqlite.exec('PRAGMA busy_timeout = 5000');
    sqlite.exec('PRAGMA synchronous = NORMAL');
    // better-sqlite3's page cache (16 MB); node:sqlite keeps SQLite's 2 MB.
    sqlite.exec('PRAGMA cache_size = -16000');
    const database = withStatementCache(sqlite);
    const db = new Kysely<Tables>({ dialect: new SqliteDialect({ database }), log: statements.log });
    attachWriter(db, database, statements.count);
    const detachReader = attachReader(db, target.file);
    return {
      db,
      dialect: 'sqlite',
      statementsSent: statements.sent,
      commitsSent: statements.commits,
      close: async () => {
        detachReader();
        await db.destroy();
      },
    };
  }
  const pool = new pg.Pool({
    connectionString: target.url,
    max: target.poolSize ?? 10,
    types: pgTypes(),
    ...(target.schema ? { options: `-c search_path=${target.schema}` } : {}),
  });
  // A connection that dies (a failover, pg_terminate_backend) emits 'error': on the pool when
  // it was idle, on the client when it was checked out between queries. Either way it is
  // already done for: the pool drops it and the next query opens a new one, and a query on
  // it fails on its own. Unheard, the event would throw and take the whole process down.
  pool.on('error', () => undefined);
  pool.on('connect', (client) => client.on('error', () => undefined));
  const db = new Kysely<Tables>({ dialect: new PostgresDialect({ pool }), log: statements.log });
  return {
    db,
    dialect: 'postgres',
    ...(target.schema ? { schema: target.schema } : {}),
    statementsSent: statements.sent,
    commitsSent: statements.commits,
    close: () => db.destroy(),
  };
}

import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import type { SqliteStatement } from 'kysely';

/**
 * The one place that knows which SQLite library serves this process (docs/decisions.md,
 * "SQLite on Node 22 and 24"): Node's built-in `node:sqlite` wherever the running Node has it
 * unflagged with StatementSync.columns() (22.16, 23.11, 24), and better-sqlite3 on Node 20,
 * the only line where it is installed and built. Neither is loaded until a SQLite file is
 * opened, so a PostgreSQL server never loads either (better-sqlite3's addon is built for the
 * Node that ran `npm ci`, and cannot load in another).
 */
export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

/** A prepared statement as Kysely runs it, plus a read of the first row. Parameters come as one array. */
export interface SqlitePrepared extends SqliteStatement {
  get(parameters: readonly unknown[]): unknown;
}

export interface SqliteConnection {
  prepare(sql: string): SqlitePrepared;
  /** Runs statements whose rows, if any, are not wanted (pragmas). */
  exec(sql: string): void;
  close(): void;
}

/** The part of node:sqlite used here (@types/node 20 does not describe it). */
interface StatementSync {
  columns(): unknown[];
  all(...parameters: unknown[]): unknown[];
  get(...parameters: unknown[]): unknown;
  run(...parameters: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...parameters: unknown[]): IterableIterator<unknown>;
}
interface DatabaseSync {
  prepare(sql: string): StatementSync;
  exec(sql: string): void;
  close(): void;
}
interface NodeSqlite {
  DatabaseSync: { new (file: string, options: { readOnly: boolean }): DatabaseSync; prototype: DatabaseSync };
  StatementSync: { prototype: Partial<StatementSync> };
}

let nodeSqlite: NodeSqlite | undefined | null = null;

/**
 * node:sqlite when this Node has it and its statements can say whether they return rows
 * (Kysely needs to know). Node 22 says, when the module loads, that SQLite is experimental:
 * that one notice is dropped, since the choice was made on purpose; every other warning passes.
 */
function loadNodeSqlite(): NodeSqlite | undefined {
  if (nodeSqlite !== null) return nodeSqlite;
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/^SQLite is an experimental feature/.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    const loaded = process.getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined;
    nodeSqlite = typeof loaded?.StatementSync.prototype.columns === 'function' ? loaded : undefined;
  } finally {
    process.emitWarning = emitWarning;
  }
  return nodeSqlite;
}

export function sqliteDriver(): SqliteDriverName {
  return loadNodeSqlite() ? 'node:sqlite' : 'better-sqlite3';
}

export function openSqlite(file: string, options: { readonly: boolean }): SqliteConnection {
  const builtIn = loadNodeSqlite();
  if (builtIn) return new NodeSqliteConnection(new builtIn.DatabaseSync(file, { readOnly: options.readonly }));
  const Database = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  // better-sqlite3 takes a statement's parameters as one array, as SqlitePrepared does.
  return new Database(file, options.readonly ? { readonly: true, fileMustExist: true } : {}) as unknown as SqliteConnection;
}

/**
 * better-sqlite3's names for the result codes this code reads (errors.ts, connection-loss.ts):
 * node:sqlite gives the number alone. Other codes get their primary name (SQLITE_IOERR for
 * every I/O error), which is all anything here asks of them.
 */
const EXTENDED_CODES: Record<number, string> = {
  275: 'SQLITE_CONSTRAINT_CHECK',
  787: 'SQLITE_CONSTRAINT_FOREIGNKEY',
  1299: 'SQLITE_CONSTRAINT_NOTNULL',
  1555: 'SQLITE_CONSTRAINT_PRIMARYKEY',
  1811: 'SQLITE_CONSTRAINT_TRIGGER',
  2067: 'SQLITE_CONSTRAINT_UNIQUE',
  2579: 'SQLITE_CONSTRAINT_ROWID',
};
const PRIMARY_CODES = [
  'SQLITE_OK',
  'SQLITE_ERROR',
  'SQLITE_INTERNAL',
  'SQLITE_PERM',
  'SQLITE_ABORT',
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_NOMEM',
  'SQLITE_READONLY',
  'SQLITE_INTERRUPT',
  'SQLITE_IOERR',
  'SQLITE_CORRUPT',
  'SQLITE_NOTFOUND',
  'SQLITE_FULL',
  'SQLITE_CANTOPEN',
  'SQLITE_PROTOCOL',
  'SQLITE_EMPTY',
  'SQLITE_SCHEMA',
  'SQLITE_TOOBIG',
  'SQLITE_CONSTRAINT',
  'SQLITE_MISMATCH',
  'SQLITE_MISUSE',
  'SQLITE_NOLFS',
  'SQLITE_AUTH',
  'SQLITE_FORMAT',
  'SQLITE_RANGE',
  'SQLITE_NOTADB',
];

/** Gives a node:sqlite error the code better-sqlite3 would have given it. */
function withSqliteCode(error: unknown): unknown {
  if (typeof error !== 'object' || error === null || !('errcode' in error) || typeof error.errcode !== 'number') return error;
  const code = EXTENDED_CODES[error.errcode] ?? PRIMARY_CODES[error.errcode & 0xff] ?? 'SQLITE_ERROR';
  Object.defineProperty(error, 'code', { value: code, configurable: true, enumerable: true, writable: true });
  return error;
}

/** better-sqlite3 binds undefined as NULL; node:sqlite refuses it. */
function bindable(parameters: readonly unknown[]): readonly unknown[] {
  return parameters.includes(undefined) ? parameters.map((value) => value ?? null) : parameters;
}

class NodeSqliteStatement implements SqlitePrepared {
  readonly reader: boolean;

  constructor(private readonly statement: StatementSync) {
    this.reader = statement.columns().length > 0;
  }

  all(parameters: readonly unknown[]): unknown[] {
    try {
      return this.statement.all(...bindable(parameters));
    } catch (error) {
      throw withSqliteCode(error);
    }
  }

  get(parameters: readonly unknown[]): unknown {
    try {
      return this.statement.get(...bindable(parameters));
    } catch (error) {
      throw withSqliteCode(error);
    }
  }

  run(parameters: readonly unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint } {
    try {
      return this.statement.run(...bindable(parameters));
    } catch (error) {
      throw withSqliteCode(error);
    }
  }

  iterate(parameters: readonly unknown[]): IterableIterator<unknown> {
    try {
      return this.statement.iterate(...bindable(parameters));
    } catch (error) {
      throw withSqliteCode(error);
    }
  }
}

class NodeSqliteConnection implements SqliteConnection {
  constructor(private readonly database: DatabaseSync) {}

  prepare(sql: string): SqlitePrepared {
    try {
      return new NodeSqliteStatement(this.database.prepare(sql));
    } catch (error) {
      throw withSqliteCode(error);
    }
  }

  exec(sql: string): void {
    try {
      this.database.exec(sql);
    } catch (error) {
      throw withSqliteCode(error);
    }
  }

  close(): void {
    this.database.close();
  }
}

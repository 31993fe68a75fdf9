import { randomBytes } from 'node:crypto';
import type { Compilable, CompiledQuery, Kysely, QueryResult } from 'kysely';
import { directReaderOf } from './sqlite-reader.js';
import type { Tables } from './tables.js';

type Argument = string | number | null;

interface Template<Row> {
  query: CompiledQuery<Row>;
  /** Where each argument lands in the compiled parameter list. */
  slots: number[];
}

/**
 * A query on a hot path, built and compiled once per database (a database and its
 * transactions share one compiled form: the key is their common adapter) and then run
 * with new arguments: building and compiling a Kysely query costs several times more than
 * running a point lookup. The builder is called once with marker values; the markers' positions in
 * the compiled parameters are where later arguments go. On SQLite it runs on the read-only
 * connection. No Kysely plugins are configured, so rows need no transforming there.
 */
function prepare<Args extends Argument[], Row>(build: (db: Kysely<Tables>, ...args: Args) => Compilable<Row>) {
  const templates = new WeakMap<object, Template<Row>>();
  const nonce = randomBytes(8).toString('hex');

  function compile(db: Kysely<Tables>, arity: number): Template<Row> {
    const markers = Array.from({ length: arity }, (_, i) => `\u0000arg${i}:${nonce}`) as Args;
    const query = build(db, ...markers).compile();
    const slots = markers.map((marker) => query.parameters.indexOf(marker));
    if (slots.some((slot) => slot < 0)) throw new Error('prepared query: every argument must become a query parameter');
    // Only its first place would take later arguments: the others would keep the marker.
    if (markers.some((marker, i) => query.parameters.lastIndexOf(marker) !== slots[i])) {
      throw new Error('prepared query: an argument may become only one query parameter; pass it again for each use');
    }
    return { query, slots };
  }

  return (db: Kysely<Tables>, args: Args): CompiledQuery<Row> => {
    const key = db.getExecutor().adapter;
    let template = templates.get(key);
    if (!template) {
      template = compile(db, args.length);
      templates.set(key, template);
    }
    const parameters = [...template.query.parameters];
    template.slots.forEach((slot, i) => {
      parameters[slot] = args[i];
    });
    return { ...template.query, parameters };
  };
}

/** A point read: the first row, or nothing. */
export function preparedLookup<Args extends Argument[], Row>(
  build: (db: Kysely<Tables>, ...args: Args) => Compilable<Row>,
): (db: Kysely<Tables>, ...args: Args) => Promise<Row | undefined> {
  const compiled = prepare(build);
  return async (db, ...args) => {
    const query = compiled(db, args);
    const reader = directReaderOf(db);
    if (reader) return reader.first(query.sql, query.parameters) as Row | undefined;
    return (await db.executeQuery<Row>(query)).rows[0];
  };
}

/** A read of many rows. */
export function preparedRows<Args extends Argument[], Row>(
  build: (db: Kysely<Tables>, ...args: Args) => Compilable<Row>,
): (db: Kysely<Tables>, ...args: Args) => Promise<Row[]> {
  const compiled = prepare(build);
  return async (db, ...args) => {
    const query = compiled(db, args);
    const reader = directReaderOf(db);
    if (reader) return reader.all(query.sql, query.parameters) as Row[];
    return (await db.executeQuery<Row>(query)).rows;
  };
}

/** A write on a hot path; `db` may be a transaction. */
export function preparedWrite<Args extends Argument[], Row>(
  build: (db: Kysely<Tables>, ...args: Args) => Compilable<Row>,
): (db: Kysely<Tables>, ...args: Args) => Promise<QueryResult<Row>> {
  const statementOf = preparedStatement(build);
  return (db, ...args) => db.executeQuery(statementOf(db, ...args));
}

/** A statement on a hot path, compiled with its arguments, for a Steps (statement-steps.ts) to yield. */
export function preparedStatement<Args extends Argument[], Row>(
  build: (db: Kysely<Tables>, ...args: Args) => Compilable<Row>,
): (db: Kysely<Tables>, ...args: Args) => CompiledQuery<Row> {
  const compiled = prepare(build);
  return (db, ...args) => compiled(db, args);
}

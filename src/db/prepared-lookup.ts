import { randomBytes } from 'node:crypto';
import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import { directReaderOf } from './sqlite-reader.js';
import type { Tables } from './tables.js';

interface Template<Row> {
  query: CompiledQuery<Row>;
  /** Where each argument lands in the compiled parameter list. */
  slots: number[];
}

/**
 * A point read (first row or nothing) on a per-request path, built and compiled once per database and then run with
 * new arguments: building and compiling a Kysely query costs several times more than
 * running a point lookup. On SQLite it runs on the read-only connection. The builder is called once with marker strings; the markers'
 * positions in the compiled parameters are where later arguments go.
 */
export function preparedLookup<Args extends string[], Row>(
  build: (db: Kysely<Tables>, ...args: Args) => Compilable<Row>,
): (db: Kysely<Tables>, ...args: Args) => Promise<Row | undefined> {
  const templates = new WeakMap<Kysely<Tables>, Template<Row>>();
  const nonce = randomBytes(8).toString('hex');

  function compile(db: Kysely<Tables>, arity: number): Template<Row> {
    const markers = Array.from({ length: arity }, (_, i) => `\u0000arg${i}:${nonce}`) as Args;
    const query = build(db, ...markers).compile();
    const slots = markers.map((marker) => query.parameters.indexOf(marker));
    if (slots.some((slot) => slot < 0)) throw new Error('preparedLookup: every argument must become a query parameter');
    return { query, slots };
  }

  return async (db, ...args) => {
    let template = templates.get(db);
    if (!template) {
      template = compile(db, args.length);
      templates.set(db, template);
    }
    const parameters = [...template.query.parameters];
    template.slots.forEach((slot, i) => {
      parameters[slot] = args[i];
    });
    // No Kysely plugins are configured, so rows need no transforming on the direct path.
    const reader = directReaderOf(db);
    if (reader) return reader(template.query.sql, parameters) as Row | undefined;
    const result = await db.executeQuery<Row>({ ...template.query, parameters });
    return result.rows[0];
  };
}

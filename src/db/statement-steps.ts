import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { Tables } from './tables.js';

/**
 * Database work written once for two ways of running it: a generator that yields each
 * statement and is handed back its result (or has its error thrown in, as an await would).
 * `runSteps` runs it through Kysely, on either engine, in a transaction of the caller's;
 * on SQLite the group commit may run it synchronously on the writer's connection instead
 * (group-commit.ts), where a statement's promise costs more than the statement itself.
 */
export type Steps<T> = Generator<CompiledQuery, T, QueryResult<unknown>>;

/** Runs one statement inside a Steps: `const { rows } = yield* statement(query)`. */
export function* statement<Row>(query: CompiledQuery<Row>): Generator<CompiledQuery, QueryResult<Row>, QueryResult<unknown>> {
  return (yield query) as QueryResult<Row>;
}

/** Runs `steps` through Kysely on `db` (a transaction, when they write more than once). */
export async function runSteps<T>(db: Kysely<Tables>, steps: Steps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    let result: QueryResult<unknown>;
    try {
      result = await db.executeQuery(next.value);
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}

/** Runs `steps` with a synchronous executor of statements. */
export function runStepsNow<T>(execute: (query: CompiledQuery) => QueryResult<unknown>, steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    let result: QueryResult<unknown>;
    try {
      result = execute(next.value);
    } catch (error) {
      next = steps.throw(error);
      continue;
    }
    next = steps.next(result);
  }
  return next.value;
}

import { CompiledQuery, type Kysely } from 'kysely';
import { dialectOf } from './database.js';
import { type SqliteWriter, sqliteWriterOf } from './sqlite-writer.js';
import { runSteps, runStepsNow, type Steps } from './statement-steps.js';
import type { Tables } from './tables.js';

type Work<T> = (trx: Kysely<Tables>) => Promise<T>;
type StepsOf<T> = (db: Kysely<Tables>) => Steps<T>;

interface Queued {
  work: Work<unknown>;
  /** The same work as Steps, when it was handed in so: then it may run without Kysely. */
  steps?: StepsOf<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type QueuedSteps = Queued & { steps: StepsOf<unknown> };

function allSteps(batch: Queued[]): batch is QueuedSteps[] {
  return batch.every((piece) => piece.steps !== undefined);
}

/** Bounds how long the first piece of a crowded turn waits for the others' work. */
const MAX_BATCH = 64;

const BEGIN = CompiledQuery.raw('begin');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');
const SAVEPOINT = CompiledQuery.raw('savepoint piece');
const RELEASE = CompiledQuery.raw('release piece');
const ROLLBACK_TO = CompiledQuery.raw('rollback to piece');

/**
 * Group commit for SQLite, which writes one transaction at a time and where the commit
 * (appending every touched page to the WAL) is most of what a webhook delivery costs: its
 * database work took 125-160 µs with a commit of its own, 55-100 µs sharing commits with
 * the others of 32 in flight.
 *
 * Work queued during one turn of the event loop runs in one transaction, each piece under
 * a savepoint of its own, and each is answered only once that transaction has committed.
 * A piece that throws is rolled back to its savepoint and fails alone; a failed commit
 * fails them all. Nothing waits on a timer: the batch starts in the same turn, after the
 * I/O callbacks that queued it, so a lone piece runs at once.
 *
 * A batch of Steps alone (a model call's hold, charge and events) runs synchronously on
 * the writer's connection while holding Kysely's lock on it: one promise for the batch
 * instead of several for each of its dozen or so statements.
 */
export class GroupCommit {
  readonly #db: Kysely<Tables>;
  readonly #writer: SqliteWriter | undefined;
  #queue: Queued[] = [];
  #scheduled = false;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
    this.#writer = sqliteWriterOf(db);
  }

  run<T>(work: Work<T>, steps?: StepsOf<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, steps, resolve: resolve as (value: unknown) => void, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      const batch = this.#queue.splice(0, MAX_BATCH);
      this.#schedule(); // what did not fit goes in the next batch
      const writer = this.#writer;
      void (writer && allSteps(batch) ? this.#commitNow(writer, batch) : this.#commit(batch));
    });
  }

  async #commit(batch: Queued[]): Promise<void> {
    if (batch.length === 1) return this.#commitAlone(batch[0] as Queued);
    const answers: (() => void)[] = [];
    try {
      await this.#db.transaction().execute(async (trx) => {
        for (const { work, resolve, reject } of batch) {
          await trx.executeQuery(SAVEPOINT);
          try {
            const value = await work(trx);
            answers.push(() => resolve(value));
          } catch (error) {
            await trx.executeQuery(ROLLBACK_TO);
            answers.push(() => reject(error));
          }
          await trx.executeQuery(RELEASE);
        }
      });
    } catch (error) {
      for (const { reject } of batch) reject(error);
      return;
    }
    for (const answer of answers) answer();
  }

  /** A lone piece needs no savepoint: its failure rolls back a transaction that holds nothing else. */
  async #commitAlone({ work, resolve, reject }: Queued): Promise<void> {
    try {
      resolve(await this.#db.transaction().execute(work));
    } catch (error) {
      reject(error);
    }
  }

  /** The batch's transaction, begun and committed with no await between: other work waits for the lock. */
  async #commitNow(writer: SqliteWriter, batch: QueuedSteps[]): Promise<void> {
    let answers: (() => void)[];
    try {
      answers = await this.#db.connection().execute(async () => this.#inOneTransaction(writer, batch));
    } catch (error) {
      for (const { reject } of batch) reject(error);
      return;
    }
    for (const answer of answers) answer();
  }

  #inOneTransaction(writer: SqliteWriter, batch: QueuedSteps[]): (() => void)[] {
    const answers: (() => void)[] = [];
    const run = (steps: StepsOf<unknown>) => runStepsNow(writer, steps(this.#db));
    writer(BEGIN);
    try {
      if (batch.length === 1) {
        const [{ steps, resolve }] = batch as [QueuedSteps];
        const value = run(steps);
        answers.push(() => resolve(value));
      } else {
        for (const { steps, resolve, reject } of batch) {
          writer(SAVEPOINT);
          try {
            const value = run(steps);
            answers.push(() => resolve(value));
          } catch (error) {
            writer(ROLLBACK_TO);
            answers.push(() => reject(error));
          }
          writer(RELEASE);
        }
      }
      writer(COMMIT);
    } catch (error) {
      rollBack(writer);
      throw error;
    }
    return answers;
  }
}

/** Ends a failed transaction; one whose commit failed may have been ended by SQLite already. */
function rollBack(writer: SqliteWriter): void {
  try {
    writer(ROLLBACK);
  } catch {
    // Nothing is open any more: what the caller is told is the error that got here.
  }
}

const groups = new WeakMap<Kysely<Tables>, GroupCommit>();

function groupOf(db: Kysely<Tables>): GroupCommit {
  let group = groups.get(db);
  if (!group) {
    group = new GroupCommit(db);
    groups.set(db, group);
  }
  return group;
}

/**
 * Runs a piece of write work in a transaction. On SQLite, pieces arriving together share
 * one (GroupCommit above): it writes one transaction at a time anyway, and the commit is
 * most of the cost. PostgreSQL commits concurrent transactions side by side, so each piece
 * there has its own.
 */
export function inGroupedTransaction<T>(db: Kysely<Tables>, work: Work<T>): Promise<T> {
  if (dialectOf(db) !== 'sqlite') return db.transaction().execute(work);
  return groupOf(db).run(work);
}

/** inGroupedTransaction for work written as Steps, which on SQLite may skip Kysely's promises. */
export function inGroupedSteps<T>(db: Kysely<Tables>, steps: StepsOf<T>): Promise<T> {
  const work: Work<T> = (trx) => runSteps(trx, steps(trx));
  if (dialectOf(db) !== 'sqlite') return db.transaction().execute(work);
  return groupOf(db).run(work, steps);
}

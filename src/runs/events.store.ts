import { randomUUID } from 'node:crypto';
import type { Kysely, Updateable } from 'kysely';
import { preparedLookup, preparedStatement } from '../db/prepared-lookup.js';
import { type Steps, statement } from '../db/statement-steps.js';
import type { Tables } from '../db/tables.js';
import type { ExecutionsTable } from '../db/tables-runs.js';
import { sealCompletedBlocks } from './event-blocks.store.js';
import { type ExecutionEvent, encodeFrame, type NewEvent, stampEvent } from './event-codec.js';

/** A stored event, with the frame it was stored as: announced as is, never rendered again. */
export interface StoredEvent {
  event: ExecutionEvent;
  frame: string;
}

/** Moves an execution's event counter on by `count`, answering its new value. */
const bumpSequence = preparedStatement((db, executionId: string, count: number) =>
  db
    .updateTable('executions')
    .set((eb) => ({ last_sequence: eb('last_sequence', '+', count) }))
    .where('execution_id', '=', executionId)
    .returning('last_sequence'),
);

/** An event row's columns, in the order the prepared inserts take them. */
type EventRow = [executionId: string, sequence: number, id: string, type: string, frame: string, createdAt: string];
const EVENT_COLUMNS = 6;

/** The row an event is stored as: the one mapping both inserts use. */
function eventRecord(...[executionId, sequence, id, type, frame, createdAt]: EventRow) {
  return { execution_id: executionId, sequence, id, type, frame, created_at: createdAt };
}

/** Batches of up to this many events are inserted by a prepared statement: a tool turn's come two at a time. */
const PREPARED_BATCH = 8;

/**
 * The insert of a batch of events, one statement for each batch size up to PREPARED_BATCH,
 * each built and compiled once (prepared-lookup.ts): one statement keeps PostgreSQL's round
 * trip, and skipping Kysely's building and compiling keeps SQLite's cost to the insert itself.
 */
const insertEvents = Array.from({ length: PREPARED_BATCH }, (_, index) =>
  preparedStatement((db, ...columns: EventRow[number][]) =>
    db
      .insertInto('execution_events')
      .values(
        Array.from({ length: index + 1 }, (_, row) =>
          eventRecord(...(columns.slice(row * EVENT_COLUMNS, (row + 1) * EVENT_COLUMNS) as EventRow)),
        ),
      ),
  ),
);

/**
 * The counter's new value. A run's events are stored a few at a time with no change to the
 * row: that case runs a prepared statement, as building and compiling the query with Kysely
 * cost more than running it.
 */
function* bumpedSequence(
  db: Kysely<Tables>,
  executionId: string,
  count: number,
  change: Updateable<ExecutionsTable>,
): Steps<number> {
  const bump =
    Object.keys(change).length === 0
      ? bumpSequence(db, executionId, count)
      : db
          .updateTable('executions')
          .set((eb) => ({ ...change, last_sequence: eb('last_sequence', '+', count) }))
          .where('execution_id', '=', executionId)
          .returning('last_sequence')
          .compile();
  const [row] = (yield* statement(bump)).rows;
  if (!row) throw new Error(`execution ${executionId} is gone: its events cannot be stored`);
  return row.last_sequence;
}

/**
 * Stores events under the next sequence numbers of their execution, in the caller's
 * transaction. The counter lives on the execution row and is bumped in the same
 * transaction, so sequences are gap-free and never repeat, on either engine. `change`
 * updates the execution row in that same transaction (a status that must move together
 * with its event). Steps (statement-steps.ts): a run's events are stored on its hot path.
 */
export function* appendEvents(
  db: Kysely<Tables>,
  executionId: string,
  events: NewEvent[],
  nowIso: string,
  change: Updateable<ExecutionsTable> = {},
): Steps<StoredEvent[]> {
  const last = yield* bumpedSequence(db, executionId, events.length, change);
  const first = last - events.length + 1;
  const stored = events.map((event, i): StoredEvent => {
    const stamped = stampEvent(event, randomUUID(), first + i);
    return { event: stamped, frame: encodeFrame(stamped) };
  });
  const rows = stored.map(({ event, frame }): EventRow => [executionId, event.sequence, event.id, event.type, frame, nowIso]);
  const prepared = insertEvents[rows.length - 1];
  if (prepared) yield* statement(prepared(db, ...rows.flat()));
  else if (rows.length > 0) {
    yield* statement(
      db
        .insertInto('execution_events')
        .values(rows.map((row) => eventRecord(...row)))
        .compile(),
    );
  }
  if (stored.length > 0) yield* sealCompletedBlocks(db, executionId, first, last);
  return stored;
}

/**
 * Where an execution stands: its status and the sequence of its last stored event, read
 * together (they move in one transaction). Every stream opened asks, so it is prepared once.
 */
export const executionProgress = preparedLookup((db, executionId: string) =>
  db.selectFrom('executions').select(['status', 'last_sequence']).where('execution_id', '=', executionId),
);

/** When each stored event after `afterSequence` was stored, in order, at most `limit` of them. */
export function eventTimesAfter(db: Kysely<Tables>, executionId: string, afterSequence: number, limit: number) {
  return db
    .selectFrom('execution_events')
    .select(['sequence', 'created_at'])
    .where('execution_id', '=', executionId)
    .where('sequence', '>', afterSequence)
    .orderBy('sequence')
    .limit(limit)
    .execute();
}

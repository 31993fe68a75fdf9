import { randomUUID } from 'node:crypto';
import type { Kysely, Updateable } from 'kysely';
import { preparedLookup } from '../db/prepared-lookup.js';
import type { ExecutionsTable, Tables } from '../db/tables.js';
import { sealCompletedBlocks } from './event-blocks.store.js';
import { type ExecutionEvent, encodeFrame, type NewEvent, stampEvent } from './event-codec.js';

/** A stored event, with the frame it was stored as: announced as is, never rendered again. */
export interface StoredEvent {
  event: ExecutionEvent;
  frame: string;
}

/**
 * Stores events under the next sequence numbers of their execution, within `trx`. The
 * counter lives on the execution row and is bumped in the same transaction, so sequences
 * are gap-free and never repeat, on either engine. `change` updates the execution row in
 * that same transaction (a status that must move together with its event).
 */
export async function appendEvents(
  trx: Kysely<Tables>,
  executionId: string,
  events: NewEvent[],
  nowIso: string,
  change: Updateable<ExecutionsTable> = {},
): Promise<StoredEvent[]> {
  const counter = await trx
    .updateTable('executions')
    .set((eb) => ({ ...change, last_sequence: eb('last_sequence', '+', events.length) }))
    .where('execution_id', '=', executionId)
    .returning('last_sequence')
    .executeTakeFirstOrThrow();
  const first = counter.last_sequence - events.length + 1;
  const stored = events.map((event, i): StoredEvent => {
    const stamped = stampEvent(event, randomUUID(), first + i);
    return { event: stamped, frame: encodeFrame(stamped) };
  });
  if (stored.length > 0) {
    await trx
      .insertInto('execution_events')
      .values(
        stored.map(({ event, frame }) => ({
          execution_id: executionId,
          sequence: event.sequence,
          id: event.id,
          type: event.type,
          frame,
          created_at: nowIso,
        })),
      )
      .execute();
    await sealCompletedBlocks(trx, executionId, first, counter.last_sequence);
  }
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

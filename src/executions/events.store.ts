import { randomUUID } from 'node:crypto';
import type { Kysely, Updateable } from 'kysely';
import { preparedLookup } from '../db/prepared-lookup.js';
import type { ExecutionsTable, Tables } from '../db/tables.js';
import type { ExecutionEvent } from './bus.js';
import { sealCompletedBlocks } from './event-blocks.store.js';

export interface NewEvent {
  type: string;
  payload: Record<string, unknown>;
}

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
    const stamped = { id: randomUUID(), type: event.type, sequence: first + i, payload: event.payload };
    return { event: stamped, frame: sseFrame(stamped) };
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

/** An event as one server-sent-event frame: the same bytes live and in a replay. */
export function sseFrame(event: ExecutionEvent): string {
  return `id: ${event.sequence}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * Where an execution stands: its status and the sequence of its last stored event, read
 * together (they move in one transaction). Every stream opened asks, so it is prepared once.
 */
export const executionProgress = preparedLookup((db, executionId: string) =>
  db.selectFrom('executions').select(['status', 'last_sequence']).where('execution_id', '=', executionId),
);

/** The event inside a stored frame. */
export function eventOfFrame(frame: string): ExecutionEvent {
  return JSON.parse(frame.slice(frame.indexOf('\ndata: ') + 7)) as ExecutionEvent;
}

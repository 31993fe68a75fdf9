import { randomUUID } from 'node:crypto';
import type { Kysely, Updateable } from 'kysely';
import { preparedList } from '../db/prepared-lookup.js';
import type { ExecutionsTable, Tables } from '../db/tables.js';
import type { ExecutionEvent } from './bus.js';

export interface NewEvent {
  type: string;
  payload: Record<string, unknown>;
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
): Promise<ExecutionEvent[]> {
  const counter = await trx
    .updateTable('executions')
    .set((eb) => ({ ...change, last_sequence: eb('last_sequence', '+', events.length) }))
    .where('execution_id', '=', executionId)
    .returning('last_sequence')
    .executeTakeFirstOrThrow();
  const first = counter.last_sequence - events.length + 1;
  const stored = events.map((event, i) => ({ id: randomUUID(), type: event.type, sequence: first + i, payload: event.payload }));
  if (stored.length > 0) {
    await trx
      .insertInto('execution_events')
      .values(
        stored.map((event) => ({
          execution_id: executionId,
          sequence: event.sequence,
          id: event.id,
          type: event.type,
          payload: JSON.stringify(event.payload),
          frame: sseFrame(event),
          created_at: nowIso,
        })),
      )
      .execute();
  }
  return stored;
}

/** An event as one server-sent-event frame: the same bytes live and in a replay. */
export function sseFrame(event: ExecutionEvent): string {
  return `id: ${event.sequence}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * The frames of stored events after `afterSequence`, in order, at most `limit`. Prepared:
 * replays read thousands of events a page at a time, and send the frames as they are.
 */
export const framesAfter = preparedList((db, executionId: string, afterSequence: number, limit: number) =>
  db
    .selectFrom('execution_events')
    .select(['type', 'sequence', 'frame'])
    .where('execution_id', '=', executionId)
    .where('sequence', '>', afterSequence)
    .orderBy('sequence')
    .limit(limit),
);

import type { StoredThreadRecord, ThreadRecord } from '../ports/thread-records.js';

/**
 * A thread record as one server-sent-event frame: stored once, then replayed and sent live
 * as the same bytes (as execution events are). There is no `event:` line: the record's
 * `type` is in its data, so a client reads every frame through one `message` handler.
 *
 * An agent.turn_end frame also carries `through`: the last sequence of the history its
 * turn was given. A client (and the chat route) can tell from it which messages the turn
 * answered; a message stored while a turn runs is answered by a later one.
 */
export function encodeThreadFrame(stored: StoredThreadRecord, through?: number): string {
  const data = JSON.stringify({
    sequence: stored.sequence,
    id: stored.id,
    createdAt: stored.createdAt,
    ...stored.record,
    ...(through === undefined ? {} : { through }),
  });
  return `id: ${stored.sequence}\ndata: ${data}\n\n`;
}

type FrameData = { sequence: number; id: string; createdAt: string; through?: number } & ThreadRecord;

/** The stored record inside a frame written by encodeThreadFrame. */
export function decodeThreadFrame(frame: string): StoredThreadRecord & { through?: number } {
  const { sequence, id, createdAt, through, ...record } = JSON.parse(frame.slice(frame.indexOf('\ndata: ') + 7)) as FrameData;
  return { sequence, id, createdAt, record: record as ThreadRecord, ...(through === undefined ? {} : { through }) };
}

/** Records that ask the agent for a turn: a person's message, or news of something that ended. */
export function isTurnInput(record: ThreadRecord): boolean {
  return record.type === 'user.message' || record.type === 'notification';
}

/** The bus channel of a thread's records, by the thread's row id. */
export function threadChannel(threadRowId: string): string {
  return `thread:${threadRowId}`;
}

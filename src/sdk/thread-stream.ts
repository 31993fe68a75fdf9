import { SkilletError } from './errors.js';
import { framesOf, sleep } from './event-stream.js';
import type { ChatOpening, ThreadRecord } from './thread-types.js';
import type { Transport } from './transport.js';

export interface ThreadStreamOptions {
  /** Start after this record (0: the thread from its first record). */
  afterSequence?: number;
  signal?: AbortSignal;
  /** Reconnects in a row without a new record before giving up (default 8). */
  maxReconnects?: number;
}

/**
 * Every record of a thread, each once and in order, then its new records as they come,
 * until `signal` aborts. A thread's stream has no end of its own: a dropped connection is
 * resumed with Last-Event-ID set to the last record seen.
 */
export async function* threadRecords(
  transport: Transport,
  agentId: string,
  thread: { resourceId: string; threadId: string },
  options: ThreadStreamOptions = {},
): AsyncGenerator<ThreadRecord> {
  let last = options.afterSequence ?? 0;
  let failures = 0;
  const maxReconnects = options.maxReconnects ?? 8;
  const path = `/api/v1/agents/${encodeURIComponent(agentId)}/subscribe-thread`;
  for (;;) {
    try {
      const resume: Record<string, string> = last > 0 ? { 'last-event-id': String(last) } : {};
      const response = await transport.send('POST', path, thread, { accept: 'text/event-stream', ...resume }, options.signal);
      if (!response.body) throw new SkilletError(response.status, 'BAD_RESPONSE', 'The thread stream had no body');
      for await (const record of framesOf<ThreadRecord>(response.body)) {
        if (record.sequence <= last) continue;
        last = record.sequence;
        failures = 0;
        yield record;
      }
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (error instanceof SkilletError && error.status >= 400 && error.status < 500) throw error;
    }
    failures += 1;
    if (failures > maxReconnects) throw new SkilletError(0, 'STREAM_LOST', 'Lost the connection to the conversation');
    await sleep(Math.min(100 * 2 ** failures, 3000));
  }
}

/**
 * Sends one message (to a new thread when `threadId` is not given) and gives the thread's
 * name, then the records from that message on, ending after the turn that answered it.
 */
export async function* chatReply(
  transport: Transport,
  agentId: string,
  message: string,
  options: { threadId?: string; signal?: AbortSignal } = {},
): AsyncGenerator<ChatOpening | ThreadRecord> {
  const body = { message, ...(options.threadId === undefined ? {} : { threadId: options.threadId }) };
  const response = await transport.send(
    'POST',
    `/api/v1/chat/${encodeURIComponent(agentId)}`,
    body,
    { accept: 'text/event-stream' },
    options.signal,
  );
  if (!response.body) throw new SkilletError(response.status, 'BAD_RESPONSE', 'The reply had no body');
  yield* framesOf<ChatOpening | ThreadRecord>(response.body);
}

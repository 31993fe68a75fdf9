import { errorFromResponse, SkilletError } from './errors.js';
import type { Transport } from './transport.js';
import type { ExecutionEvent } from './types.js';

export interface StreamOptions {
  /** Start after this sequence (0: from the first event). */
  afterSequence?: number;
  signal?: AbortSignal;
  /** Reconnects in a row without a new event before giving up (default 8). */
  maxReconnects?: number;
}

/** The chunks of a body. A consumer that stops early cancels the body, as `for await` over it would. */
async function* chunksOf(body: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = body.getReader();
  let done = false;
  try {
    while (!done) {
      const next = await reader.read();
      done = next.done;
      if (next.value) yield next.value;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

/** The data of each frame of one server-sent-event body, parsed as JSON, as they arrive. */
export async function* framesOf<Frame = ExecutionEvent>(body: ReadableStream<Uint8Array>): AsyncGenerator<Frame> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of chunksOf(body)) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) yield JSON.parse(data) as Frame;
      end = buffer.indexOf('\n\n');
    }
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Every event of an execution, each once and in order, until the server ends the stream
 * after the run's session.status_idle. A dropped connection is picked up again with a
 * fresh signed URL and `lastSeq` set to the last event seen, so nothing is repeated or
 * missed across reconnects.
 */
export async function* executionEvents(
  transport: Transport,
  executionId: string,
  options: StreamOptions = {},
): AsyncGenerator<ExecutionEvent> {
  let last = options.afterSequence ?? 0;
  let failures = 0;
  const maxReconnects = options.maxReconnects ?? 8;
  let lastType: string | undefined;
  for (;;) {
    try {
      const { sseUrl } = await transport.json<{ sseUrl: string }>(
        'GET',
        `/api/v1/executions/${encodeURIComponent(executionId)}/stream-token`,
      );
      const response = await fetch(
        last > 0 ? `${sseUrl}&lastSeq=${last}` : sseUrl,
        options.signal ? { signal: options.signal } : {},
      );
      if (!response.ok || !response.body) throw errorFromResponse(response.status, await response.json().catch(() => null), null);
      for await (const event of framesOf(response.body)) {
        if (event.sequence <= last) continue;
        last = event.sequence;
        lastType = event.type;
        failures = 0;
        yield event;
      }
      // The server ends the stream only after the idle that ends the run (also when
      // resuming right after it, with nothing left to send).
      if (lastType === 'session.status_idle') return;
    } catch (error) {
      if (options.signal?.aborted) throw error;
      if (error instanceof SkilletError && error.status >= 400 && error.status < 500) throw error;
    }
    failures += 1;
    if (failures > maxReconnects) throw new SkilletError(0, 'STREAM_LOST', `Lost the event stream of ${executionId}`);
    await sleep(Math.min(100 * 2 ** failures, 3000));
  }
}

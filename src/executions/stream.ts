import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import type { ExecutionEvent } from './bus.js';
import { frameChunksAfter } from './event-blocks.store.js';
import { eventTypeAt, sseFrame } from './events.store.js';

/**
 * Serves one execution's events as server-sent events: everything stored after
 * `afterSequence`, then live events, with no gap and no duplicate at the hand-over. Live
 * events that arrive during the replay wait in a queue; each is written only if it is the
 * next sequence, and a gap (a missed announcement) is filled from the store. The stream
 * ends after a session.status_idle with nothing newer behind it.
 */
export async function serveEventStream(
  ctx: AppContext,
  reply: FastifyReply,
  executionId: string,
  afterSequence: number,
): Promise<void> {
  const raw = reply.raw;
  reply.hijack();
  // The rate-limit headers were set on the reply before it was handed over.
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) raw.setHeader(name, value);
  }
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // Headers go out now, not with the first event: a client waits for them before it
  // posts the user.message that produces that event.
  raw.write(': connected\n\n');

  let lastSent = afterSequence;
  let closed = false;
  let busy = true;
  const queue: ExecutionEvent[] = [];

  const close = () => {
    if (closed) return;
    closed = true;
    unsubscribe();
    stopHeartbeat();
    raw.end();
  };
  const send = (event: ExecutionEvent) => {
    raw.write(sseFrame(event));
    lastSent = event.sequence;
  };
  const endsStream = (event: { type: string; sequence: number }) =>
    event.type === 'session.status_idle' && !queue.some((next) => next.sequence > event.sequence);

  /** Writes stored events after lastSent, a chunk per write, up to `through` (else all stored). */
  const replay = async (through?: number): Promise<void> => {
    for await (const chunk of frameChunksAfter(ctx.db, executionId, lastSent, through)) {
      if (closed) return;
      raw.write(chunk.text);
      lastSent = chunk.lastSequence;
    }
  };

  const drain = async () => {
    if (busy || closed) return;
    busy = true;
    try {
      while (queue.length > 0 && !closed) {
        const event = queue.shift() as ExecutionEvent;
        if (event.sequence <= lastSent) continue;
        if (event.sequence > lastSent + 1) await replay(event.sequence - 1);
        if (event.sequence !== lastSent + 1) continue;
        send(event);
        if (endsStream(event)) close();
      }
    } finally {
      busy = false;
    }
  };

  const unsubscribe = ctx.bus.subscribe(executionId, (event) => {
    queue.push(event);
    void drain();
  });
  const stopHeartbeat = ctx.heartbeats.add(raw);
  raw.on('close', close);

  await replay();
  // Checked also when nothing was replayed: a client resuming after a finished run's last event.
  const endedRun = lastSent > 0 && (await eventTypeAt(ctx.db, executionId, lastSent))?.type === 'session.status_idle';
  if (endedRun && !queue.some((next) => next.sequence > lastSent)) {
    close();
    return;
  }
  busy = false;
  await drain();
}

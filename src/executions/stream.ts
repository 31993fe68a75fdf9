import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import type { ExecutionEvent } from './bus.js';
import { framePageAfter, sseFrame } from './events.store.js';

const REPLAY_PAGE = 1000;

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
    clearInterval(heartbeat);
    raw.end();
  };
  const send = (event: ExecutionEvent) => {
    raw.write(sseFrame(event));
    lastSent = event.sequence;
  };
  const endsStream = (event: { type: string; sequence: number }) =>
    event.type === 'session.status_idle' && !queue.some((next) => next.sequence > event.sequence);

  /**
   * Writes stored events after lastSent, a page per write, up to `through` (everything
   * stored when undefined). Returns whether the last event written ends a run.
   */
  const replay = async (through?: number): Promise<boolean> => {
    let endsWithIdle = false;
    while (!closed && (through === undefined || lastSent < through)) {
      const limit = through === undefined ? REPLAY_PAGE : Math.min(REPLAY_PAGE, through - lastSent);
      const page = await framePageAfter(ctx.db, executionId, lastSent, limit);
      if (!page?.frames || page.lastSequence === null) return endsWithIdle;
      raw.write(page.frames);
      lastSent = page.lastSequence;
      endsWithIdle = page.lastIdle === page.lastSequence;
      if (page.count < limit) return endsWithIdle;
    }
    return endsWithIdle;
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
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), ctx.config.executions.heartbeatMs);
  raw.on('close', close);

  const endedRun = await replay();
  if (endedRun && !queue.some((next) => next.sequence > lastSent)) {
    close();
    return;
  }
  busy = false;
  await drain();
}

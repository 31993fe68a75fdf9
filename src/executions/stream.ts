import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import type { ExecutionEvent } from './bus.js';
import { framesAfter, sseFrame } from './events.store.js';

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

  /** Writes stored events after lastSent up to `through` (all of them when undefined), a page per write. */
  const replay = async (through?: number): Promise<{ type: string; sequence: number } | undefined> => {
    let last: { type: string; sequence: number } | undefined;
    for (;;) {
      if (closed) return last;
      const page = await framesAfter(ctx.db, executionId, lastSent, REPLAY_PAGE);
      const wanted = through === undefined ? page : page.filter((event) => event.sequence <= through);
      if (wanted.length > 0) {
        raw.write(wanted.map((event) => event.frame).join(''));
        last = wanted.at(-1);
        lastSent = last?.sequence ?? lastSent;
      }
      if (page.length < REPLAY_PAGE || wanted.length < page.length) return last;
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
  const heartbeat = setInterval(() => raw.write(': keep-alive\n\n'), ctx.config.executions.heartbeatMs);
  raw.on('close', close);

  const lastReplayed = await replay();
  if (lastReplayed && endsStream(lastReplayed)) {
    close();
    return;
  }
  busy = false;
  await drain();
}

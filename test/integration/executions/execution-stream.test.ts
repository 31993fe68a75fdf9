import { describe, expect, vi } from 'vitest';
import type { AnnouncedEvent } from '../../../src/ports/channels.js';
import { InProcessChannels } from '../../../src/realtime/bus.js';
import { createExecution, runToEnd, sendMessage, streamOf, tickerRunTypes } from '../../helpers/executions.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { client, tamper } from '../../helpers/http.js';
import { startServer } from '../../helpers/server.js';
import { openStream } from '../../helpers/sse.js';

const sequences = (events: { sequence: number }[]) => events.map((event) => event.sequence);
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

const it = withServer({
  RATE_LIMIT_REST_PER_MINUTE: '100000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
  STREAM_HEARTBEAT_MS: '40',
})
  .extend('person', { scope: 'file' }, ({ api }) => signUp(api))
  // A ticker run interrupted after a few ticks: its execution is idle again, and the live stream ended on the interrupt.
  .extend('interruptedTicker', { scope: 'file' }, ({ api, person }) => async () => {
    const created = await createExecution(api, person, 'ticker', '200 20');
    const live = await streamOf(api, person, created.id);
    await sendMessage(api, person, created.id, '200 20');
    await live.waitFor(4);
    const interrupt = await api.post(`/api/v1/executions/${created.id}/events`, {
      body: { events: [{ type: 'user.interrupt' }] },
      headers: session(person),
    });
    expect(interrupt.status).toBe(200);
    await live.ended;
    expect(live.events.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'interrupt' } } });
    expect(sequences(live.events)).toEqual(oneTo(live.events.length));
    return { created, events: live.events };
  })
  // Opens a stream expected to be refused, and answers its status and error body (closing it if it was not refused).
  .extend(
    'refusedStream',
    { scope: 'file' },
    ({ api, person }) =>
      async (executionId: string, suffix: string, headers: Record<string, string> = {}) => {
        const token = await api.get<{ sseUrl: string }>(`/api/v1/executions/${executionId}/stream-token`, {
          headers: session(person),
        });
        const stream = await openStream(token.body.sseUrl + suffix, headers);
        stream.close();
        return [stream.status, stream.body === '' ? stream.body : JSON.parse(stream.body)];
      },
  );

const beyondLast = [400, { error: { code: 'INVALID_INPUT', message: expect.stringContaining('beyond the last event') } }];

describe('replay', () => {
  it('replays a finished execution from sequence 1 without gaps, then ends at once', async ({ api, person }) => {
    const { created, stream: live } = await runToEnd(api, person, 'ticker', '20 1');
    const replayed = await streamOf(api, person, created.id);
    await replayed.ended;
    expect(sequences(replayed.events)).toEqual(oneTo(24));
    expect(replayed.events).toEqual(live.events);
  });

  it('replays only what follows lastSeq, or a Last-Event-ID header', async ({ api, person }) => {
    const { created } = await runToEnd(api, person, 'ticker', '5 1');
    const after = await streamOf(api, person, created.id, '&lastSeq=5');
    await after.ended;
    expect(sequences(after.events)).toEqual([6, 7, 8, 9]);
    const token = await api.get<{ sseUrl: string }>(`/api/v1/executions/${created.id}/stream-token`, {
      headers: session(person),
    });
    const resumed = await openStream(token.body.sseUrl, { 'last-event-id': '7' });
    await resumed.ended;
    expect(sequences(resumed.events)).toEqual([8, 9]);
  });

  it('replays runs long enough to be stored in blocks from any point, falling back to single events for an oversized block', async ({
    server,
    api,
    person,
  }) => {
    // 300 messages of 3,000 characters make block 0 too large to join; the small ones after them fill joined blocks.
    const { created, stream: live } = await runToEnd(api, person, 'chatty', '300 3000 500 20');
    const total = live.events.length;
    expect(sequences(live.events)).toEqual(oneTo(total));
    const blocks = await server.db.db
      .selectFrom('execution_event_blocks')
      .select('block')
      .where('execution_id', '=', created.id)
      .orderBy('block')
      .execute();
    expect(blocks.map((row) => row.block)).toEqual([1, 2]);
    for (const after of [0, 1, 255, 256, 257, 511, 512, 600, 768, 769, total - 1, total]) {
      const replayed = await streamOf(api, person, created.id, `&lastSeq=${after}`);
      await replayed.ended;
      expect(replayed.events, `after ${after}`).toEqual(live.events.slice(after));
    }
  });

  it('sends a comment heartbeat while waiting', async ({ api, person }) => {
    const created = await createExecution(api, person, 'ticker', '2 150');
    const stream = await streamOf(api, person, created.id);
    await sendMessage(api, person, created.id, '2 150');
    await stream.ended;
    expect(stream.comments).toBeGreaterThan(2);
  });
});

describe('a lastSeq beyond the last event', () => {
  it('is 400 INVALID_INPUT for a finished execution, given as lastSeq or Last-Event-ID; the last event itself ends the stream at once', async ({
    api,
    person,
    refusedStream,
  }) => {
    const { created, stream } = await runToEnd(api, person, 'ticker', '2 1');
    const last = stream.events.length;
    expect(await refusedStream(created.id, `&lastSeq=${last + 1}`)).toEqual(beyondLast);
    expect(await refusedStream(created.id, '&lastSeq=999999999999')).toEqual(beyondLast);
    expect(await refusedStream(created.id, '', { 'last-event-id': String(last + 1) })).toEqual(beyondLast);
    const { created: failed, stream: failedRun } = await runToEnd(api, person, 'crashes', 'x');
    expect(await refusedStream(failed.id, `&lastSeq=${failedRun.events.length + 1}`)).toEqual(beyondLast);

    const atEnd = await streamOf(api, person, created.id, `&lastSeq=${last}`);
    await atEnd.ended;
    expect([atEnd.status, atEnd.events]).toEqual([200, []]);
  });

  it('is 400 INVALID_INPUT for an idle or working execution too: no event with that sequence was ever sent', async ({
    api,
    person,
    interruptedTicker,
    refusedStream,
  }) => {
    const fresh = await createExecution(api, person, 'ticker', '1 1');
    expect(await refusedStream(fresh.id, '&lastSeq=1')).toEqual(beyondLast);

    const { created: interrupted, events } = await interruptedTicker();
    expect(await refusedStream(interrupted.id, `&lastSeq=${events.length + 1}`)).toEqual(beyondLast);

    const working = await createExecution(api, person, 'ticker', '200 20');
    const live = await streamOf(api, person, working.id);
    await sendMessage(api, person, working.id, '200 20');
    await live.waitFor(3);
    expect(await refusedStream(working.id, '&lastSeq=100000')).toEqual(beyondLast);
    await api.post(`/api/v1/executions/${working.id}/cancel`, { headers: session(person) });
    await live.ended;
  });
});

describe('resuming an interrupted execution', () => {
  it('a stream opened after the interrupt waits for the next run, delivers it, and ends after its session.status_idle', async ({
    api,
    person,
    interruptedTicker,
  }) => {
    const { created, events } = await interruptedTicker();
    const last = events.length;
    const resumed = await streamOf(api, person, created.id, `&lastSeq=${last}`);
    const replayed = await streamOf(api, person, created.id);
    let over = false;
    void Promise.all([resumed.ended, replayed.ended]).then(() => {
      over = true;
    });
    // Several heartbeats go by: both streams wait instead of ending on the replayed interrupt.
    await vi.waitFor(() => expect(Math.min(resumed.comments, replayed.comments)).toBeGreaterThan(4));
    expect(over).toBe(false);
    expect(resumed.events).toEqual([]);
    expect(replayed.events).toEqual(events);

    expect((await sendMessage(api, person, created.id, '3 1')).status).toBe(200);
    await Promise.all([resumed.ended, replayed.ended]);
    expect(resumed.events.map((event) => event.type)).toEqual(tickerRunTypes(3));
    expect(sequences(resumed.events)).toEqual(oneTo(last + 7).slice(last));
    expect(resumed.events.at(-1)).toMatchObject({ payload: { stop_reason: { type: 'end_turn' } } });
    expect(replayed.events).toEqual([...events, ...resumed.events]);
  });
});

describe('live delivery', () => {
  it('a reconnect with lastSeq in the middle of a live ticker run gets exactly the remaining events', async ({ api, person }) => {
    const created = await createExecution(api, person, 'ticker', '30 15');
    const first = await streamOf(api, person, created.id);
    await sendMessage(api, person, created.id, '30 15');
    await first.waitFor(8);
    first.close();
    const seen = first.events.at(-1)?.sequence ?? 0;
    const second = await streamOf(api, person, created.id, `&lastSeq=${seen}`);
    await second.ended;
    expect([...sequences(first.events), ...sequences(second.events)]).toEqual(oneTo(34));
    expect(second.events[0]?.sequence).toBe(seen + 1);
  });

  it('100 concurrent subscribers of one run all receive the identical sequence', async ({ api, person }) => {
    const created = await createExecution(api, person, 'ticker', '10 10');
    const streams = await Promise.all(Array.from({ length: 100 }, () => streamOf(api, person, created.id)));
    await sendMessage(api, person, created.id, '10 10');
    await Promise.all(streams.map((stream) => stream.ended));
    const reference = streams[0]?.events ?? [];
    expect(sequences(reference)).toEqual(oneTo(14));
    for (const stream of streams) expect(stream.events).toEqual(reference);
  });
});

describe('the signed URL', () => {
  it('is refused when tampered with, expired, or missing, before anything else', async ({ server, api, person }) => {
    const created = await createExecution(api, person, 'ticker', '1 1');
    const token = await api.get<{ sseUrl: string }>(`/api/v1/executions/${created.id}/stream-token`, {
      headers: session(person),
    });
    const url = new URL(token.body.sseUrl);
    expect(url.pathname).toBe(`/executions/${created.id}/stream`);

    const tampered = new URL(url);
    tampered.searchParams.set('sig', tamper(url.searchParams.get('sig') ?? ''));
    const otherExecution = new URL(url);
    otherExecution.pathname = `/executions/${(await createExecution(api, person, 'ticker', '1 1')).id}/stream`;
    const unsigned = new URL(url);
    unsigned.search = '';
    for (const bad of [tampered, otherExecution, unsigned]) {
      const reply = await api.get(bad.pathname + bad.search);
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid stream signature' } });
    }

    server.clock.advance(5 * 60_000 + 1);
    const expired = await api.get(url.pathname + url.search);
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.stringContaining('expired') } });
  });

  it('refuses a lastSeq that is not a non-negative integer', async ({ api, person }) => {
    const created = await createExecution(api, person, 'ticker', '1 1');
    const stream = await streamOf(api, person, created.id, '&lastSeq=-1');
    expect(stream.status).toBe(400);
  });
});

/** Loses every third announcement, the way a cross-node bus might drop a message. */
class LossyBus extends InProcessChannels<AnnouncedEvent> {
  #published = 0;
  dropped = 0;

  override publish(channel: string, message: AnnouncedEvent): void {
    this.#published += 1;
    if (this.#published % 3 === 0 && message.type !== 'session.status_idle') {
      this.dropped += 1;
      return;
    }
    super.publish(channel, message);
  }
}

describe('a lost announcement', () => {
  it('is filled from the store, so every subscriber still gets every event once, in order', async () => {
    const bus = new LossyBus();
    const lossy = await startServer({ RATE_LIMIT_REST_PER_MINUTE: '100000' }, { bus });
    try {
      const lossyApi = client(lossy.url);
      const someone = await signUp(lossyApi);
      const created = await createExecution(lossyApi, someone, 'ticker', '12 5');
      const streams = await Promise.all(Array.from({ length: 5 }, () => streamOf(lossyApi, someone, created.id)));
      await sendMessage(lossyApi, someone, created.id, '12 5');
      await Promise.all(streams.map((stream) => stream.ended));
      expect(bus.dropped).toBeGreaterThan(2);
      const replayed = await streamOf(lossyApi, someone, created.id);
      await replayed.ended;
      expect(sequences(replayed.events)).toEqual(oneTo(16));
      for (const stream of streams) expect(stream.events).toEqual(replayed.events);
    } finally {
      await lossy.close();
    }
  });
});

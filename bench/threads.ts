/**
 * Agent threads (issue 17): 1,000 subscribers of one thread, and how far apart they receive
 * the same record (its delivery spread: the last subscriber's receipt minus the first's),
 * beside the bare Node SSE server of the streams suite (server.ts `sse-baseline`, read by
 * the streams suite's own subscriber code) broadcasting the same number of events to
 * 1,000 subscribers of its own, in the same run.
 *
 * One Skillet process (embedded, SQLite), its model the fake Anthropic server of the tests
 * running in this process, so that a turn needs no internet. Each message sent into the
 * thread gives every subscriber its user.message record, then the agent's reply (a chunk,
 * the message, the turn end) as the turn goes. Rounds take turns: a message to the
 * thread, wait for every subscriber to have its turn end; then as many baseline events as
 * the thread delivered that round, twice: one at a time, each after a quiet gap (as the
 * streams suite sends its ticks), and at the offsets the thread's records came at, so that
 * the baseline also meets a burst. Deliveries of different rounds never overlap. The first
 * round warms both sides up and is not measured.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type AnthropicPlan, startFakeAnthropic } from '../test/fakes/anthropic.js';
import { json, median, percentile, type Server, seedUser, startServer, stop } from './processes.js';
import { type Subscriber, subscribe } from './streams.js';

const SUBSCRIBERS = 1000;
/** Measured messages; each delivers four records (user.message, agent.chunk, agent.message, agent.turn_end). */
const MESSAGES = 30;
/** Quiet time after a delivery reached every subscriber, before the next event is sent. */
const GAP_MS = 75;
const DELIVERY_TIMEOUT_MS = 30_000;
const AGENT = 'assistant';
const THREAD = 'bench-thread';
const MODEL = 'claude-bench';
const HOUSE_KEY = `sk-ant-bench-${'a'.repeat(24)}`;
/** The fake reports 10 input and 5 output tokens a call: at these prices every call costs 1 Ds. */
const PRICES = { [MODEL]: { input: 50_000, output: 100_000 } };
/** Shorter than one delta of the fake (16 characters): one agent.chunk per reply. */
const REPLY: AnthropicPlan = { kind: 'reply', blocks: [{ type: 'text', text: 'Noted.' }] };

interface ThreadSubscriber {
  response?: IncomingMessage;
  /** The `id:` (record sequence) of every frame received, in order of receipt. */
  sequences: number[];
  /** Receipt time of each record, by sequence (its first receipt). */
  at: Map<number, number>;
  turnEnds: number;
  /** The frames themselves, kept by one subscriber only: what the records were. */
  frames?: string[];
}

interface Skillet {
  server: Server;
  apiKey: string;
  workspaceId: string;
}

/**
 * Opens `count` subscriptions of the thread, a few hundred at a time, each on a connection of
 * its own (an HTTP/1.1 stream holds its socket), as the streams suite opens its subscribers.
 * Each resolves on the stream's first bytes (`: connected`).
 */
async function subscribeThread(skillet: Skillet, count: number): Promise<ThreadSubscriber[]> {
  const url = `${skillet.server.url}/api/v1/agents/${AGENT}/subscribe-thread`;
  const body = JSON.stringify({ resourceId: skillet.workspaceId, threadId: THREAD });
  const subscribers: ThreadSubscriber[] = [];
  for (let batch = 0; batch < count; batch += 250) {
    const opening = Array.from({ length: Math.min(250, count - batch) }, async (_, i) => {
      const subscriber: ThreadSubscriber = { sequences: [], at: new Map(), turnEnds: 0 };
      if (batch + i === 0) subscriber.frames = [];
      await new Promise<void>((resolve, reject) => {
        const request = httpRequest(
          url,
          {
            method: 'POST',
            agent: false,
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
              'x-api-key': skillet.apiKey,
            },
          },
          (response) => {
            subscriber.response = response;
            response.setEncoding('utf8');
            if (response.statusCode !== 200) {
              let text = '';
              response.on('data', (chunk: string) => {
                text += chunk;
              });
              response.on('end', () => reject(new Error(`subscribe-thread: ${response.statusCode} ${text}`)));
              return;
            }
            let carry = '';
            response.on('data', (chunk: string) => {
              const at = performance.now();
              carry += chunk;
              for (let end = carry.indexOf('\n\n'); end >= 0; end = carry.indexOf('\n\n')) {
                const frame = carry.slice(0, end);
                carry = carry.slice(end + 2);
                // Comments (`: connected`, `: heartbeat`) carry no record.
                if (!frame.startsWith('id: ')) continue;
                const sequence = Number(frame.slice(4, frame.indexOf('\n')));
                subscriber.sequences.push(sequence);
                if (!subscriber.at.has(sequence)) subscriber.at.set(sequence, at);
                if (frame.includes('"type":"agent.turn_end"')) subscriber.turnEnds++;
                subscriber.frames?.push(frame);
              }
              resolve();
            });
          },
        );
        request.on('error', reject);
        request.end(body);
      });
      subscribers.push(subscriber);
    });
    await Promise.all(opening);
  }
  return subscribers;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(done: () => boolean, what: () => string): Promise<void> {
  const deadline = performance.now() + DELIVERY_TIMEOUT_MS;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`not delivered within ${DELIVERY_TIMEOUT_MS} ms: ${what()}`);
    await settle(5);
  }
}

async function sendMessage(skillet: Skillet, text: string): Promise<void> {
  await json(`${skillet.server.url}/api/v1/agents/${AGENT}/send-message`, {
    method: 'POST',
    headers: { 'x-api-key': skillet.apiKey },
    body: JSON.stringify({ resourceId: skillet.workspaceId, threadId: THREAD, message: text }),
  });
}

/** Receipt times of each event, one array per event (one time per subscriber that got it). */
type Receipts = number[][];

interface Spread {
  /** Per event: the last subscriber's receipt minus the first's. */
  perEvent: number[];
  /** Per event and subscriber: its receipt minus the first's (the streams suite's measure). */
  lags: number[];
}

function spreadOf(receipts: Receipts): Spread {
  const perEvent: number[] = [];
  const lags: number[] = [];
  for (const times of receipts) {
    const first = Math.min(...times);
    perEvent.push(Math.max(...times) - first);
    for (const time of times) lags.push(time - first);
  }
  return { perEvent, lags };
}

/** Whether every subscriber got the records 1..last, each once and in order; a sentence saying so or what went wrong. */
function deliveryCheck(subscribers: ThreadSubscriber[], last: number): { ok: boolean; said: string } {
  let wrong = 0;
  let example = '';
  for (const [index, subscriber] of subscribers.entries()) {
    const inOrder = subscriber.sequences.length === last && subscriber.sequences.every((sequence, i) => sequence === i + 1);
    if (inOrder) continue;
    wrong++;
    example ||= `subscriber ${index} got ${subscriber.sequences.length} frames: ${subscriber.sequences.slice(0, 12).join(',')}...`;
  }
  return wrong === 0
    ? { ok: true, said: `all ${subscribers.length} subscribers got records 1..${last}, each once, in order` }
    : { ok: false, said: `${wrong} of ${subscribers.length} subscribers did not get 1..${last} once in order (${example})` };
}

/** The data folder of a Skillet server process (server.ts makes one in the temp folder): the one its SQLite files are open in. */
function dataDirOf(server: Server): string | undefined {
  const fds = `/proc/${server.process.pid}/fd`;
  const prefix = path.join(tmpdir(), 'skillet-bench-');
  for (const fd of readdirSync(fds)) {
    let target = '';
    try {
      target = readlinkSync(path.join(fds, fd));
    } catch {
      continue;
    }
    if (target.startsWith(prefix)) return target.slice(0, target.indexOf('/', prefix.length));
  }
  return undefined;
}

const ms = (value: number) => Number(value.toFixed(2));
const ratio = (a: number, b: number) => Number((a / b).toFixed(2));

export async function threadFanOut(): Promise<void> {
  const fake = await startFakeAnthropic();
  let ours: Server | undefined;
  let base: Server | undefined;
  let dataDir: string | undefined;
  const open: { response?: IncomingMessage }[] = [];
  try {
    ours = await startServer(
      'skillet',
      JSON.stringify({
        ANTHROPIC_API_KEY: HOUSE_KEY,
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_MODEL: MODEL,
        MODEL_PRICES: JSON.stringify(PRICES),
        MODEL_MAX_RETRIES: '0',
        SIGNUP_CREDITS: '1000000',
      }),
    );
    dataDir = dataDirOf(ours);
    base = await startServer('sse-baseline');
    const { apiKey } = await seedUser(ours.url, 'threads@example.test');
    const me = await json<{ user: { personalWorkspaceId: string } }>(`${ours.url}/api/v1/me`, {
      headers: { 'x-api-key': apiKey },
    });
    const skillet: Skillet = { server: ours, apiKey, workspaceId: me.user.personalWorkspaceId };

    const openedAt = performance.now();
    const threadSubscribers = await subscribeThread(skillet, SUBSCRIBERS);
    open.push(...threadSubscribers);
    const openMs = performance.now() - openedAt;
    const bareSubscribers: Subscriber[] = await subscribe(`${base.url}/live`, SUBSCRIBERS);
    open.push(...bareSubscribers);
    await settle(500);

    const baseUrl = base.url;
    let ticks = 0;
    /** Baseline ticks by schedule, measured rounds only. */
    const single: number[] = [];
    const burst: number[] = [];
    const burstMs: number[] = [];
    let warmRecords = 0;
    const broadcast = async (tick: number) => {
      await fetch(`${baseUrl}/broadcast?tick=${tick}`, { method: 'POST' });
    };
    const bareGot = async (tick: number) => {
      await until(
        () => bareSubscribers.every((subscriber) => subscriber.ticks.has(tick)),
        () => `baseline event ${tick}: ${bareSubscribers.filter((s) => s.ticks.has(tick)).length} of ${SUBSCRIBERS}`,
      );
    };
    for (let round = 0; round <= MESSAGES; round++) {
      const before = threadSubscribers[0]?.sequences.length ?? 0;
      fake.plan(REPLY);
      await sendMessage(skillet, `Message ${round} to everyone on the thread.`);
      await until(
        () => threadSubscribers.every((subscriber) => subscriber.turnEnds > round),
        () => `turn ${round}: ${threadSubscribers.filter((s) => s.turnEnds > round).length} of ${SUBSCRIBERS} have its end`,
      );
      await settle(GAP_MS);
      const sequences = (threadSubscribers[0]?.sequences ?? []).slice(before);
      if (round === 0) warmRecords = sequences.length;
      // When each record of the round first reached anyone, from the first one: the burst the baseline repeats.
      const firsts = sequences.map((sequence) =>
        Math.min(...threadSubscribers.map((subscriber) => subscriber.at.get(sequence) ?? Number.POSITIVE_INFINITY)),
      );
      const offsets = firsts.map((first) => first - (firsts[0] ?? 0));
      if (round > 0) burstMs.push(offsets.at(-1) ?? 0);
      // The same number of baseline events one at a time, each after a quiet gap, as the streams suite sends them...
      for (let event = 0; event < sequences.length; event++) {
        const tick = ++ticks;
        if (round > 0) single.push(tick);
        await broadcast(tick);
        await bareGot(tick);
        await settle(GAP_MS);
      }
      // ...and again sent as the thread's records came, at the same offsets from the first.
      const started = performance.now();
      const sending: Promise<void>[] = [];
      for (const offset of offsets) {
        const tick = ++ticks;
        if (round > 0) burst.push(tick);
        const wait = started + offset - performance.now();
        if (wait > 0) await settle(wait);
        sending.push(broadcast(tick));
      }
      await Promise.all(sending);
      for (let tick = ticks - offsets.length + 1; tick <= ticks; tick++) await bareGot(tick);
      await settle(GAP_MS);
    }
    // Anything sent late (a duplicate, a stray record) has time to show up before the check.
    await settle(500);

    const last = Math.max(...threadSubscribers.map((subscriber) => subscriber.sequences.at(-1) ?? 0));
    const check = deliveryCheck(threadSubscribers, last);
    const frames = threadSubscribers[0]?.frames ?? [];
    const typeOf = (sequence: number) =>
      /"type":"([^"]+)"/.exec(frames.find((frame) => frame.startsWith(`id: ${sequence}\n`)) ?? '')?.[1] ?? '?';
    const turnEnds = frames.filter((frame) => frame.includes('"type":"agent.turn_end"'));
    const endedWell = turnEnds.filter((frame) => frame.includes('"stopReason":"end_turn"')).length;
    const measured = Array.from({ length: last - warmRecords }, (_, i) => warmRecords + 1 + i);
    const receiptsOf = (sequences: number[]): Receipts =>
      sequences.map((sequence) =>
        threadSubscribers.map((subscriber) => subscriber.at.get(sequence)).filter((time): time is number => time !== undefined),
      );
    const ourSpread = spreadOf(receiptsOf(measured));
    const messageSpread = spreadOf(receiptsOf(measured.filter((sequence) => typeOf(sequence) === 'user.message')));
    const bareSpreadOf = (schedule: number[]) =>
      spreadOf(
        schedule.map((tick) =>
          bareSubscribers.map((subscriber) => subscriber.ticks.get(tick)).filter((time): time is number => time !== undefined),
        ),
      );
    const bareSingle = bareSpreadOf(single);
    const bareBurst = bareSpreadOf(burst);
    const bareComplete = bareSubscribers.every((subscriber) => subscriber.ticks.size === ticks);
    const types = new Map<string, number>();
    for (const sequence of measured) types.set(typeOf(sequence), (types.get(typeOf(sequence)) ?? 0) + 1);

    const p99 = (spread: Spread) => percentile(spread.perEvent, 99);
    const lag99 = (spread: Spread) => percentile(spread.lags, 99);
    const row = (measure: string, skillet: number, baseline: number, judged: boolean) => ({
      measure,
      skillet: ms(skillet),
      baseline: ms(baseline),
      ratio: ratio(skillet, baseline),
      target: judged ? '<= 1.5' : '-',
      verdict: judged ? (skillet / baseline <= 1.5 ? 'met' : 'MISSED') : '-',
    });
    console.log(
      `\nAgent threads: ${SUBSCRIBERS} subscribers of one thread vs a bare Node SSE server broadcasting to ${SUBSCRIBERS} ` +
        `(the streams suite's baseline), in the same run; ${MESSAGES} measured messages after one warm-up, ` +
        `${measured.length} records (${[...types].map(([type, n]) => `${n} ${type}`).join(', ')}); the baseline sends as ` +
        `many events twice over: one at a time, each after a ${GAP_MS} ms quiet gap, and at the offsets the thread's ` +
        `records of the round came at (a round's records within ${ms(median(burstMs))} ms, median)\n`,
    );
    console.table([
      row(
        "p99 delivery spread per record, last subscriber's receipt - first's (ms); baseline: same timing",
        p99(ourSpread),
        p99(bareBurst),
        true,
      ),
      row('  the same; baseline: events one at a time (ms)', p99(ourSpread), p99(bareSingle), true),
      row(
        'median delivery spread per record (ms); baseline: same timing',
        median(ourSpread.perEvent),
        median(bareBurst.perEvent),
        false,
      ),
      row('  the same; baseline: events one at a time (ms)', median(ourSpread.perEvent), median(bareSingle.perEvent), false),
      row(
        "p99 of each subscriber's lag behind the first, the streams suite's spread (ms); baseline: same timing",
        lag99(ourSpread),
        lag99(bareBurst),
        true,
      ),
      row(
        'p99 spread of the user.message records alone (ms); baseline: events one at a time',
        p99(messageSpread),
        p99(bareSingle),
        false,
      ),
      {
        measure: 'every subscriber got every record (event) once, in order',
        skillet: `${last} x ${SUBSCRIBERS}`,
        baseline: `${ticks} x ${SUBSCRIBERS}`,
        ratio: '-',
        target: 'all',
        verdict: check.ok && bareComplete ? 'met' : 'MISSED',
      },
    ]);
    const byType = [...types.keys()].map((type) => {
      const spread = spreadOf(receiptsOf(measured.filter((sequence) => typeOf(sequence) === type))).perEvent;
      return `${type} ${ms(median(spread))}/${ms(percentile(spread, 99))}`;
    });
    console.log(`Spread by record type, median/p99 (ms): ${byType.join(', ')}.`);
    console.log(`Delivery: ${check.said}; ${endedWell} of ${turnEnds.length} turns ended end_turn.`);
    console.log(
      `Opening ${SUBSCRIBERS} subscriptions (250 at a time, one connection each) took ${Math.round(openMs)} ms; ` +
        `the fake model answered ${fake.requests.length} calls.`,
    );
  } finally {
    for (const subscriber of open) subscriber.response?.destroy();
    if (ours) await stop(ours);
    if (base) await stop(base);
    await fake.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

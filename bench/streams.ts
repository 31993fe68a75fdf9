/**
 * Event streams: replay throughput against a bare Node SSE server serving the same bytes
 * from memory; live fan-out to many idle subscribers (memory per connection and delivery
 * spread) against the bare server broadcasting in a loop; and the cost of one run of an
 * empty script skill.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import {
  json,
  type MemoryReading,
  median,
  memoryAfterCollection,
  percentile,
  type Server,
  seedUser,
  startServer,
  stop,
} from './processes.js';

const REPLAY_EVENTS = 10_000;
/** Replay rounds are short: more of them, after a few unmeasured ones to warm both servers up. */
const REPLAY_WARMUP = 10;
const REPLAY_ROUNDS = 60;
const MEMORY_SAMPLES = 3;
const TICKS = 5;
const TICK_MS = 300;

interface Skillet {
  server: Server;
  apiKey: string;
}

async function api<T>(skillet: Skillet, path: string, body?: unknown): Promise<T> {
  return json<T>(`${skillet.server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-api-key': skillet.apiKey },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function newExecution(skillet: Skillet, skill: string, input: string): Promise<{ id: string; sseUrl: string }> {
  const { id } = await api<{ id: string }>(skillet, '/api/v1/executions', { skill_slug: skill, input });
  const { sseUrl } = await api<{ sseUrl: string }>(skillet, `/api/v1/executions/${id}/stream-token`);
  return { id, sseUrl };
}

function start(skillet: Skillet, id: string, input: string) {
  return api(skillet, `/api/v1/executions/${id}/events`, {
    events: [{ type: 'user.message', content: [{ type: 'text', text: input }] }],
  });
}

const framesIn = (text: string) => text.split('\ndata: ').length - 1;

/** Reads a whole stream; resolves with its text and how long it took. */
async function readAll(url: string): Promise<{ text: string; ms: number }> {
  const started = performance.now();
  const text = await (await fetch(url)).text();
  return { text, ms: performance.now() - started };
}

async function replay(skillet: Skillet, base: Server) {
  const run = await newExecution(skillet, 'ticker', `${REPLAY_EVENTS - 4} 0`);
  const live = fetch(run.sseUrl).then((response) => response.text());
  await start(skillet, run.id, `${REPLAY_EVENTS - 4} 0`);
  const stored = await live;
  await fetch(`${base.url}/frames`, { method: 'POST', body: stored.slice(stored.indexOf('id: ')) });

  const ours: number[] = [];
  const bare: number[] = [];
  for (let round = 0; round < REPLAY_WARMUP + REPLAY_ROUNDS; round++) {
    const measured = round >= REPLAY_WARMUP;
    const bareRun = await readAll(`${base.url}/replay`);
    if (measured) bare.push(framesIn(bareRun.text) / (bareRun.ms / 1000));
    const { sseUrl } = await api<{ sseUrl: string }>(skillet, `/api/v1/executions/${run.id}/stream-token`);
    const ourRun = await readAll(sseUrl);
    if (framesIn(ourRun.text) !== REPLAY_EVENTS)
      throw new Error(`replayed ${framesIn(ourRun.text)} events, not ${REPLAY_EVENTS}`);
    if (measured) ours.push(REPLAY_EVENTS / (ourRun.ms / 1000));
  }
  return { ours: median(ours), bare: median(bare) };
}

export interface Subscriber {
  response?: IncomingMessage;
  /** Receipt time of each tick, by tick number. */
  ticks: Map<number, number>;
}

/** Opens `count` idle SSE connections, a few hundred at a time. */
export async function subscribe(url: string, count: number): Promise<Subscriber[]> {
  const subscribers: Subscriber[] = [];
  for (let batch = 0; batch < count; batch += 250) {
    const opening = Array.from({ length: Math.min(250, count - batch) }, async () => {
      const subscriber: Subscriber = { ticks: new Map() };
      await new Promise<void>((resolve, reject) => {
        const request = httpRequest(url, { agent: false }, (response) => {
          subscriber.response = response;
          response.setEncoding('utf8');
          let carry = '';
          response.on('data', (chunk: string) => {
            const at = performance.now();
            carry += chunk;
            for (const match of carry.matchAll(/tick (\d+) of/g)) subscriber.ticks.set(Number(match[1]), at);
            carry = carry.slice(-20);
            resolve();
          });
        });
        request.on('error', reject);
        request.end();
      });
      subscribers.push(subscriber);
    });
    await Promise.all(opening);
  }
  return subscribers;
}

/** Per tick, how long after the first subscriber each other one received it. */
function spread(subscribers: Subscriber[]): number[] {
  const samples: number[] = [];
  for (let tick = 1; tick <= TICKS; tick++) {
    const times = subscribers
      .map((subscriber) => subscriber.ticks.get(tick))
      .filter((time): time is number => time !== undefined);
    if (times.length !== subscribers.length)
      throw new Error(`tick ${tick} reached ${times.length} of ${subscribers.length} subscribers`);
    const first = Math.min(...times);
    for (const time of times) samples.push(time - first);
  }
  return samples;
}

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForTicks(subscribers: Subscriber[]): Promise<void> {
  for (let waited = 0; waited < 30_000; waited += 50) {
    if (subscribers.every((subscriber) => subscriber.ticks.size >= TICKS)) return;
    await settle(50);
  }
}

/** Delivery spread of live fan-out (no forced collection in these processes: see fanOutMemory). */
async function fanOutSpread(skillet: Skillet, base: Server, count: number) {
  const run = await newExecution(skillet, 'ticker', `${TICKS} ${TICK_MS}`);
  const ours = await subscribe(run.sseUrl, count);
  await settle(500);
  await start(skillet, run.id, `${TICKS} ${TICK_MS}`);
  await waitForTicks(ours);
  const ourSpread = spread(ours);
  for (const subscriber of ours) subscriber.response?.destroy();

  const bare = await subscribe(`${base.url}/live`, count);
  await settle(500);
  for (let tick = 1; tick <= TICKS; tick++) {
    await fetch(`${base.url}/broadcast?tick=${tick}`, { method: 'POST' });
    await settle(TICK_MS);
  }
  await waitForTicks(bare);
  const bareSpread = spread(bare);
  for (const subscriber of bare) subscriber.response?.destroy();
  await settle(500);
  return { ours: percentile(ourSpread, 99), bare: percentile(bareSpread, 99) };
}

/** Connections opened and closed before measuring: the first ones pay for compiling the code path. */
const WARMUP_CONNECTIONS = 200;

/** Growth per idle subscriber, each reading taken after a forced collection. */
async function memoryPerConnection(server: Server, url: string, count: number): Promise<MemoryReading> {
  for (const subscriber of await subscribe(url, WARMUP_CONNECTIONS)) subscriber.response?.destroy();
  await settle(500);
  const before = await memoryAfterCollection(server);
  const subscribers = await subscribe(url, count);
  await settle(500);
  const after = await memoryAfterCollection(server);
  for (const subscriber of subscribers) subscriber.response?.destroy();
  await settle(500);
  return { resident: (after.resident - before.resident) / count, heap: (after.heap - before.heap) / count };
}

/**
 * Memory per idle subscriber, on fresh server processes of both kinds: a process that has
 * already held thousands of connections keeps that memory, and a forced collection slows
 * the one it happens in, so neither may share a process with other measures.
 */
async function freshMemoryPerConnection(count: number) {
  const ours = await startServer('skillet');
  const base = await startServer('sse-baseline');
  try {
    const skillet: Skillet = { server: ours, apiKey: (await seedUser(ours.url, 'memory@example.test')).apiKey };
    const idle = await newExecution(skillet, 'ticker', '1 1');
    return {
      ours: await memoryPerConnection(ours, idle.sseUrl, count),
      bare: await memoryPerConnection(base, `${base.url}/live`, count),
    };
  } finally {
    await stop(ours);
    await stop(base);
  }
}

const medianOf = (readings: MemoryReading[]): MemoryReading => ({
  resident: median(readings.map((reading) => reading.resident)),
  heap: median(readings.map((reading) => reading.heap)),
});

/** The median of MEMORY_SAMPLES fresh-process readings on each side: resident memory is noisy. */
async function fanOutMemory(count: number) {
  const samples = [];
  for (let i = 0; i < MEMORY_SAMPLES; i++) samples.push(await freshMemoryPerConnection(count));
  return { ours: medianOf(samples.map((sample) => sample.ours)), bare: medianOf(samples.map((sample) => sample.bare)) };
}

/** From posting the user.message to receiving session.status_idle, for a skill that does nothing. */
async function runOnce(skillet: Skillet): Promise<number> {
  const run = await newExecution(skillet, 'empty', 'go');
  const response = await fetch(run.sseUrl);
  const ended = response.text();
  const started = performance.now();
  await start(skillet, run.id, 'go');
  await ended;
  return performance.now() - started;
}

/**
 * The run cost in the sandbox beside the same on a server whose skills run on Node's
 * permission model alone (SKILL_SANDBOX=none), taken in turns so both see the same machine.
 */
async function runCosts(sandboxed: Skillet, unconfined: Skillet): Promise<{ sandboxed: number[]; unconfined: number[] }> {
  const timings = { sandboxed: [] as number[], unconfined: [] as number[] };
  for (let i = 0; i < RUN_COST_ROUNDS; i++) {
    // Time for the server's pool to start the sandbox the last run took (see POOL_REFILL_MS).
    await new Promise((resolve) => setTimeout(resolve, POOL_REFILL_MS));
    timings.sandboxed.push(await runOnce(sandboxed));
    timings.unconfined.push(await runOnce(unconfined));
  }
  return timings;
}

const RUN_COST_ROUNDS = 20;
/**
 * Between sandboxed rounds: the server's pool of warm script sandboxes (SCRIPT_POOL_SIZE, 2)
 * starts the next a quarter second after a run takes one. Runs that come faster than it
 * refills start their own sandbox, at the cost measured before the pool.
 */
const POOL_REFILL_MS = 800;

async function runCostRows(skillet: Skillet) {
  const unconfined = await startServer('skillet', JSON.stringify({ SKILL_SANDBOX: 'none' }));
  try {
    const other: Skillet = { server: unconfined, apiKey: (await seedUser(unconfined.url, 'unconfined@example.test')).apiKey };
    const cost = await runCosts(skillet, other);
    const row = (label: string, timings: number[], target: string, verdict: string) => ({
      measure: `run of an empty script skill, ${label}: user.message to session.status_idle (ms)`,
      skillet: Number(median(timings).toFixed(1)),
      baseline: '-',
      ratio: `p95 ${percentile(timings, 95).toFixed(1)} ms`,
      target,
      verdict,
    });
    return [
      row(
        'in the sandbox (bubblewrap + permission model), on a warm sandbox',
        cost.sandboxed,
        '<= 25 ms',
        median(cost.sandboxed) <= 25 ? 'met' : 'MISSED',
      ),
      row('permission model alone', cost.unconfined, '-', '-'),
      {
        measure: 'sandbox cost: sandboxed median / permission-model-only median',
        skillet: Number(median(cost.sandboxed).toFixed(1)),
        baseline: Number(median(cost.unconfined).toFixed(1)),
        ratio: ratio(median(cost.sandboxed), median(cost.unconfined)),
        target: '-',
        verdict: '-',
      },
    ];
  } finally {
    await stop(unconfined);
  }
}

interface Measure {
  ours: number;
  bare: number;
}

/**
 * Resident growth holds the heap growth, so a resident reading below the heap reading
 * measured the reuse of pages the process already had, not the connections: it is
 * reported, not judged. That happens to the bare server at 1,000 connections.
 */
function memoryVerdict(kind: keyof MemoryReading, ours: MemoryReading, bare: MemoryReading): string {
  if (kind === 'resident' && (ours.resident < ours.heap || bare.resident < bare.heap)) return 'page reuse: not judged';
  return ours[kind] / bare[kind] <= 1.5 ? 'met' : 'MISSED';
}

interface MemoryMeasure {
  ours: MemoryReading;
  bare: MemoryReading;
}

function memoryRows(count: number, { ours, bare }: MemoryMeasure) {
  return (['resident', 'heap'] as const).map((kind) => ({
    measure: `fan-out to ${count}: ${kind} memory per connection (KiB)`,
    skillet: kib(ours[kind]),
    baseline: kib(bare[kind]),
    ratio: ratio(ours[kind], bare[kind]),
    target: '<= 1.5',
    verdict: memoryVerdict(kind, ours, bare),
  }));
}

function spreadRow(count: number, p99: Measure) {
  return {
    measure: `fan-out to ${count}: p99 delivery spread (ms)`,
    skillet: Number(p99.ours.toFixed(1)),
    baseline: Number(p99.bare.toFixed(1)),
    ratio: ratio(p99.ours, p99.bare),
    target: '<= 1.5',
    verdict: p99.ours / p99.bare <= 1.5 ? 'met' : 'MISSED',
  };
}

const kib = (bytes: number) => Number((bytes / 1024).toFixed(1));
const ratio = (a: number, b: number) => Number((a / b).toFixed(2));
const FAN_OUT_COUNTS = [1000, 10_000];

/** `part` narrows the run to one measure: BENCH_ONLY=replay, fan-out-memory or run-cost. */
export async function streams(part?: 'replay' | 'fan-out-memory' | 'run-cost'): Promise<void> {
  if (part === 'fan-out-memory') {
    const rows = [];
    for (const count of FAN_OUT_COUNTS) rows.push(...memoryRows(count, await fanOutMemory(count)));
    console.log('\nFan-out memory: Skillet vs a bare Node SSE server in the same run; medians\n');
    console.table(rows);
    return;
  }
  const ours = await startServer('skillet');
  if (part === 'run-cost') {
    try {
      const skillet: Skillet = { server: ours, apiKey: (await seedUser(ours.url, 'streams@example.test')).apiKey };
      console.log('\nThe cost of a run: in the sandbox and on the permission model alone, in turns; medians\n');
      console.table(await runCostRows(skillet));
    } finally {
      await stop(ours);
    }
    return;
  }
  const base = await startServer('sse-baseline');
  try {
    const skillet: Skillet = { server: ours, apiKey: (await seedUser(ours.url, 'streams@example.test')).apiKey };
    const replayed = await replay(skillet, base);
    const rows: Record<string, string | number>[] = [
      {
        measure: `replay of ${REPLAY_EVENTS} stored events (events/s)`,
        skillet: Math.round(replayed.ours),
        baseline: Math.round(replayed.bare),
        ratio: ratio(replayed.ours, replayed.bare),
        target: '>= 0.5',
        verdict: replayed.ours / replayed.bare >= 0.5 ? 'met' : 'MISSED',
      },
    ];
    if (part !== 'replay') {
      const spreads = [];
      for (const count of FAN_OUT_COUNTS) spreads.push(await fanOutSpread(skillet, base, count));
      for (const [i, count] of FAN_OUT_COUNTS.entries()) {
        rows.push(...memoryRows(count, await fanOutMemory(count)), spreadRow(count, spreads[i] as Measure));
      }
      rows.push(...(await runCostRows(skillet)));
    }
    console.log('\nEvent streams: Skillet vs a bare Node SSE server in the same run; medians\n');
    console.table(rows);
  } finally {
    await stop(ours);
    await stop(base);
  }
}

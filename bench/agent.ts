/**
 * The agent runtime, against the fake Anthropic server of the tests running in this process:
 * - what Skillet adds to each model call: a run whose model makes 20 list_files tool turns and
 *   then answers, timed from posting the user.message to the session.status_idle frame,
 *   beside the same SDK making the same calls (the very request bodies Skillet sent) from
 *   this process, back to back;
 * - how soon a finished text block reaches the run's stream: from the fake writing the
 *   block's last delta to the agent.message frame arriving here (one clock: the fake and the
 *   stream reader share this process), beside the SDK here seeing content_block_stop.
 */

import { existsSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { type AnthropicPlan, type FakeAnthropic, type RecordedRequest, startFakeAnthropic } from '../test/fakes/anthropic.js';
import { metricValue } from './metrics.js';
import { cpuTimes, json, median, percentile, pinning, type Server, seedUser, startServerOnEveryCore, stop } from './processes.js';

const TOOL_TURNS = 20;
const CALLS = TOOL_TURNS + 1;
/**
 * A round takes about a tenth of a second: many of them, for a steadier median on a noisy
 * machine (15 rounds read from 1.35 to 1.93 ms added per call on one machine in an hour).
 */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
/** Unmeasured rounds first: both sides' code paths compiled, both connection pools warm. */
const WARM_UP_ROUNDS = 3;
/** Enough that the p95 is not just the second-worst run. */
const LATENCY_RUNS = 50;
const LATENCY_WARM_UP = 5;
const MODEL = 'claude-bench';
const HOUSE_KEY = `sk-ant-bench-${'a'.repeat(24)}`;
const SIGNUP_CREDITS = 1_000_000;
/** The fake reports 10 input and 5 output tokens a call: at these prices every call costs exactly 1 Ds. */
const PRICES = { [MODEL]: { input: 50_000, output: 100_000 } };
const FRAME_TIMEOUT_MS = 30_000;

const TURN_PLANS: AnthropicPlan[] = [
  ...Array.from(
    { length: TOOL_TURNS },
    (_, i): AnthropicPlan => ({
      kind: 'reply',
      blocks: [{ type: 'tool_use', id: `toolu_bench_${i}`, name: 'list_files', input: {} }],
    }),
  ),
  { kind: 'reply', blocks: [{ type: 'text', text: `Listed the files ${TOOL_TURNS} times; nothing else to do.` }] },
];
/** A paragraph, so the block arrives in a couple of dozen deltas as a real one would. */
const ANSWER = 'The files are listed above. '.repeat(14).trim();
const ANSWER_PLAN: AnthropicPlan = { kind: 'reply', blocks: [{ type: 'text', text: ANSWER }] };

interface Skillet {
  server: Server;
  apiKey: string;
}

interface Frame {
  type: string;
  payload: Record<string, unknown>;
  /** performance.now() when the chunk holding the frame's end arrived. */
  at: number;
}

interface Stream {
  frames: Frame[];
  /** The first frame of `type`, now or once it arrives. */
  next(type: string): Promise<Frame>;
  close(): void;
}

/** A run's SSE stream on a plain connection of its own, its frames timed as their chunks arrive. */
async function openStream(url: string): Promise<Stream> {
  const frames: Frame[] = [];
  const waiters = new Map<string, (frame: Frame) => void>();
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    httpRequest(url, { agent: false }, resolve).on('error', reject).end();
  });
  response.setEncoding('utf8');
  let carry = '';
  response.on('data', (chunk: string) => {
    const at = performance.now();
    carry += chunk;
    for (let end = carry.indexOf('\n\n'); end >= 0; end = carry.indexOf('\n\n')) {
      const data = carry
        .slice(0, end)
        .split('\n')
        .find((line) => line.startsWith('data: '));
      carry = carry.slice(end + 2);
      if (!data) continue;
      const { type, payload } = JSON.parse(data.slice(6)) as Omit<Frame, 'at'>;
      const frame = { type, payload, at };
      frames.push(frame);
      waiters.get(type)?.(frame);
      waiters.delete(type);
    }
  });
  const next = (type: string) =>
    new Promise<Frame>((resolve, reject) => {
      const seen = frames.find((frame) => frame.type === type);
      if (seen) return resolve(seen);
      // A run that went wrong would otherwise leave the benchmark waiting for ever.
      const timer = setTimeout(() => {
        const got = frames.map((frame) => (frame.type === 'agent.info' ? JSON.stringify(frame.payload) : frame.type));
        reject(new Error(`no ${type} frame within ${FRAME_TIMEOUT_MS} ms; got ${got.join(', ')}`));
      }, FRAME_TIMEOUT_MS);
      waiters.set(type, (frame) => {
        clearTimeout(timer);
        resolve(frame);
      });
    });
  return { frames, next, close: () => response.destroy() };
}

function api<T>(skillet: Skillet, path: string, body?: unknown): Promise<T> {
  return json<T>(`${skillet.server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-api-key': skillet.apiKey },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

interface SkilletRun {
  /** From posting the user.message to the session.status_idle frame. */
  ms: number;
  /** Latency of the first agent.message: its arrival here after the fake wrote the block's last delta. */
  firstMessageMs: number;
  /** The request bodies Skillet sent the fake, in order. */
  bodies: Record<string, unknown>[];
  /** Where the run's time went: before the first call, between calls, and after the last. */
  split: RunSplit;
}

interface RunSplit {
  /** From posting the user.message to the fake receiving the first call. */
  startMs: number;
  /** From the fake writing a reply's last delta to it receiving the next call, median. */
  betweenMs: number;
  /** From the fake writing the last reply's last delta to session.status_idle arriving here. */
  endMs: number;
}

function splitOf(started: number, sent: RecordedRequest[], idleAt: number): RunSplit {
  const between = sent.slice(1).map((request, index) => request.receivedAt - (sent[index]?.lastDeltaAt ?? Number.NaN));
  return {
    startMs: (sent[0]?.receivedAt ?? Number.NaN) - started,
    betweenMs: median(between),
    endMs: idleAt - (sent.at(-1)?.lastDeltaAt ?? Number.NaN),
  };
}

/** One run of `agent-plain`, the fake answering with `plans`; fails unless every plan was used and the run ended its turn. */
async function skilletRun(skillet: Skillet, fake: FakeAnthropic, plans: AnthropicPlan[]): Promise<SkilletRun> {
  const input = 'List the files.';
  const { id } = await api<{ id: string }>(skillet, '/api/v1/executions', { skill_slug: 'agent-plain', input });
  const { sseUrl } = await api<{ sseUrl: string }>(skillet, `/api/v1/executions/${id}/stream-token`);
  const stream = await openStream(sseUrl);
  const first = fake.requests.length;
  fake.plan(...plans);
  const started = performance.now();
  try {
    await api(skillet, `/api/v1/executions/${id}/events`, {
      events: [{ type: 'user.message', content: [{ type: 'text', text: input }] }],
    });
    const idle = await stream.next('session.status_idle');
    const message = stream.frames.find((frame) => frame.type === 'agent.message');
    const sent = fake.requests.slice(first);
    const stopReason = (idle.payload.stop_reason as { type?: string } | undefined)?.type;
    if (!message || sent.length !== plans.length || stopReason !== 'end_turn') {
      throw new Error(`the run made ${sent.length} of ${plans.length} model calls and stopped with ${stopReason}`);
    }
    const lastDeltaAt = sent.at(-1)?.lastDeltaAt ?? Number.NaN;
    return {
      ms: idle.at - started,
      firstMessageMs: message.at - lastDeltaAt,
      bodies: sent.map((request) => request.body),
      split: splitOf(started, sent, idle.at),
    };
  } finally {
    stream.close();
  }
}

function vendorClient(fake: FakeAnthropic): Anthropic {
  // As Skillet builds its client (anthropic-client.ts), less the retries: a failure here should show.
  return new Anthropic({ apiKey: HOUSE_KEY, authToken: null, baseURL: fake.url, maxRetries: 0, logLevel: 'off' });
}

/**
 * The floor: the same SDK sending the bodies Skillet sent, one after another, reading every
 * event. Returns the total time and, per call, when content_block_stop arrived after the fake
 * wrote the last delta.
 */
async function baselineRun(client: Anthropic, fake: FakeAnthropic, plans: AnthropicPlan[], bodies: Record<string, unknown>[]) {
  fake.plan(...plans);
  const blockLatency: number[] = [];
  const started = performance.now();
  for (const body of bodies) {
    // A body Skillet's own SDK client sent, so it has this shape.
    const params = { ...body, stream: true } as Anthropic.MessageCreateParamsStreaming;
    let stopped = false;
    for await (const event of await client.messages.create(params)) {
      if (event.type === 'content_block_stop')
        blockLatency.push(performance.now() - (fake.requests.at(-1)?.lastDeltaAt ?? Number.NaN));
      if (event.type === 'message_stop') stopped = true;
    }
    if (!stopped) throw new Error('the baseline call ended without message_stop');
  }
  return { ms: performance.now() - started, blockLatency };
}

/** CPU the server has used so far, ms: its event loop's thread, and the process as a whole (Linux); undefined elsewhere. */
function serverCpu(server: Server): { loop: number; all: number } | undefined {
  const pid = server.process.pid;
  const loopStat = `/proc/${pid}/task/${pid}/stat`;
  if (pid === undefined || !existsSync(loopStat)) return undefined;
  return { loop: cpuTimes(loopStat).own, all: cpuTimes(`/proc/${pid}/stat`).own };
}

interface RunCpu {
  /** The server's event loop, ms per measured run. */
  loop: number;
  /** Its other threads (the collector's helpers, the thread pool), ms per measured run. */
  others: number;
}

async function turnOverhead(skillet: Skillet, fake: FakeAnthropic, client: Anthropic) {
  const { bodies } = await skilletRun(skillet, fake, TURN_PLANS);
  const rounds: { ours: number; bare: number; split: RunSplit }[] = [];
  // Summed over the measured runs alone: clock ticks are too coarse for one run.
  const cpu = { loop: 0, all: 0, read: true };
  for (let round = 0; round < WARM_UP_ROUNDS + ROUNDS; round++) {
    const bare = (await baselineRun(client, fake, TURN_PLANS, bodies)).ms;
    const before = serverCpu(skillet.server);
    const { ms: ours, split } = await skilletRun(skillet, fake, TURN_PLANS);
    const after = serverCpu(skillet.server);
    if (round < WARM_UP_ROUNDS) continue;
    rounds.push({ ours, bare, split });
    if (!before || !after) cpu.read = false;
    else {
      cpu.loop += after.loop - before.loop;
      cpu.all += after.all - before.all;
    }
  }
  const runCpu: RunCpu | undefined = cpu.read ? { loop: cpu.loop / ROUNDS, others: (cpu.all - cpu.loop) / ROUNDS } : undefined;
  return { rounds, runCpu, skilletRuns: 1 + WARM_UP_ROUNDS + ROUNDS };
}

interface DatabaseWork {
  statements: number;
  commits: number;
}

/**
 * What one 21-call run sends the database, from the node's own counters read around it:
 * counts, so they read the same on a quiet machine and a noisy one. A scrape runs a query of
 * its own (the ledger's totals), so what two scrapes with nothing between them add is taken off.
 */
async function databaseWork(skillet: Skillet, fake: FakeAnthropic): Promise<DatabaseWork | undefined> {
  const metricsUrl = `${skillet.server.url}/metrics`;
  const read = async () => ({
    statements: (await metricValue(metricsUrl, 'skillet_db_statements_total')) ?? Number.NaN,
    commits: (await metricValue(metricsUrl, 'skillet_db_commits_total')) ?? Number.NaN,
  });
  const idle = await read();
  const before = await read();
  await skilletRun(skillet, fake, TURN_PLANS);
  const after = await read();
  const work = {
    statements: after.statements - before.statements - (before.statements - idle.statements),
    commits: after.commits - before.commits - (before.commits - idle.commits),
  };
  return Number.isNaN(work.statements) || Number.isNaN(work.commits) ? undefined : work;
}

async function firstMessageLatency(skillet: Skillet, fake: FakeAnthropic, client: Anthropic) {
  const { bodies } = await skilletRun(skillet, fake, [ANSWER_PLAN]);
  const ours: number[] = [];
  const bare: number[] = [];
  for (let run = 0; run < LATENCY_WARM_UP + LATENCY_RUNS; run++) {
    const baseline = await baselineRun(client, fake, [ANSWER_PLAN], bodies);
    const skilletSide = await skilletRun(skillet, fake, [ANSWER_PLAN]);
    if (run < LATENCY_WARM_UP) continue;
    bare.push(...baseline.blockLatency);
    ours.push(skilletSide.firstMessageMs);
  }
  return { ours, bare, skilletRuns: 1 + LATENCY_WARM_UP + LATENCY_RUNS };
}

const ms = (value: number) => Number(value.toFixed(2));
const plus = (value: number) => `${value >= 0 ? '+' : ''}${ms(value)} ms`;

export async function agentRuntime(): Promise<void> {
  const fake = await startFakeAnthropic();
  const client = vendorClient(fake);
  let ours: Server | undefined;
  try {
    // Every core: the server's computers and thread pool share them with it, as deployed.
    ours = await startServerOnEveryCore(
      'skillet',
      JSON.stringify({
        ANTHROPIC_API_KEY: HOUSE_KEY,
        ANTHROPIC_BASE_URL: fake.url,
        ANTHROPIC_MODEL: MODEL,
        MODEL_PRICES: JSON.stringify(PRICES),
        MODEL_MAX_RETRIES: '0',
        SIGNUP_CREDITS: String(SIGNUP_CREDITS),
      }),
    );
    const skillet: Skillet = { server: ours, apiKey: (await seedUser(ours.url, 'agent@example.test')).apiKey };
    const turns = await turnOverhead(skillet, fake, client);
    const database = await databaseWork(skillet, fake);
    const latency = await firstMessageLatency(skillet, fake, client);
    const { balance } = await json<{ balance: number }>(`${ours.url}/api/v1/billing/balance`, {
      headers: { 'x-api-key': skillet.apiKey },
    });

    const perCall = (runMs: number) => runMs / CALLS;
    const added = median(turns.rounds.map((round) => (round.ours - round.bare) / CALLS));
    const oursPerCall = median(turns.rounds.map((round) => perCall(round.ours)));
    const barePerCall = median(turns.rounds.map((round) => perCall(round.bare)));
    const latencyMedian = median(latency.ours);
    // One run more than the rounds: the one whose database work was counted.
    const calls = (turns.skilletRuns + 1) * CALLS + latency.skilletRuns;
    const spent = SIGNUP_CREDITS - balance;
    console.log(
      `\nAgent runtime: a skill whose fake model makes ${CALLS} calls (${TOOL_TURNS} list_files turns, then text) vs the same SDK ` +
        `making the same calls from this process; ${WARM_UP_ROUNDS} warm-up then ${ROUNDS} alternating rounds, and ` +
        `${LATENCY_RUNS} single-answer runs for the first agent.message; ` +
        `${pinning ? 'this process on core 0, the server and its computers on every core' : 'unpinned'}; medians\n`,
    );
    console.table([
      {
        measure: `model call in a ${CALLS}-call run, user.message to session.status_idle / ${CALLS} (ms)`,
        skillet: ms(oursPerCall),
        baseline: ms(barePerCall),
        ratio: Number((oursPerCall / barePerCall).toFixed(2)),
        target: '-',
        verdict: '-',
      },
      {
        measure: `time Skillet adds per model call: (run - baseline run) / ${CALLS} (ms)`,
        skillet: ms(added),
        baseline: '-',
        ratio: '-',
        target: '<= 1.5 ms',
        verdict: added <= 1.5 ? 'met' : 'MISSED',
      },
      {
        measure: 'first agent.message after the last text delta is written, median (ms)',
        skillet: ms(latencyMedian),
        baseline: ms(median(latency.bare)),
        ratio: plus(latencyMedian - median(latency.bare)),
        target: '<= 10 ms',
        verdict: latencyMedian <= 10 ? 'met' : 'MISSED',
      },
      {
        measure: 'first agent.message after the last text delta is written, p95 (ms)',
        skillet: ms(percentile(latency.ours, 95)),
        baseline: ms(percentile(latency.bare, 95)),
        ratio: plus(percentile(latency.ours, 95) - percentile(latency.bare, 95)),
        target: '-',
        verdict: '-',
      },
      {
        // Charging is part of what a turn costs: this row shows it ran, one charge per call.
        measure: 'Ds charged vs one 1 Ds charge per model call',
        skillet: spent,
        baseline: calls,
        ratio: spent - calls,
        target: 'equal',
        verdict: spent === calls ? 'met' : 'MISSED',
      },
    ]);
    const perRound = turns.rounds.map((round) => `${ms(perCall(round.ours))}/${ms(perCall(round.bare))}`).join(', ');
    console.log(`Rounds (skillet/baseline ms per model call): ${perRound}`);
    const splitMedian = (part: keyof RunSplit) => ms(median(turns.rounds.map((round) => round.split[part])));
    console.log(
      `Where a Skillet run's time goes, medians: ${splitMedian('startMs')} ms from user.message to the first call, ` +
        `${splitMedian('betweenMs')} ms from a reply's last delta to the next call, ` +
        `${splitMedian('endMs')} ms from the last reply's last delta to session.status_idle.`,
    );
    if (turns.runCpu) {
      console.log(
        `The server's CPU during a ${CALLS}-call run, mean: ${ms(turns.runCpu.loop)} ms on its event loop, ` +
          `${ms(turns.runCpu.others)} ms on its other threads (the collector's helpers, the thread pool).`,
      );
    }
    if (database) {
      console.log(
        `What a ${CALLS}-call run sends the database: ${database.statements} statements in ${database.commits} commits ` +
          `(${ms(database.commits / CALLS)} commits a model call).`,
      );
    }
    console.log('Baseline of the latency rows: the SDK in this process seeing content_block_stop.');
  } finally {
    if (ours) await stop(ours);
    await fake.close();
  }
}

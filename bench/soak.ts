/**
 * BENCH_ONLY=soak (never part of the all-suites run: it takes SOAK_MINUTES, 30 by default).
 *
 * A real Skillet server (embedded: SQLite, built-in skills) and a bare Fastify baseline
 * (soak-baseline.ts) as processes. First a short closed-loop ramp finds the most mix
 * operations per second Skillet sustains on this machine; then both servers get the mix
 * (soak-mix.ts) open-loop at half that rate, the same operations at the same moments, for
 * SOAK_MINUTES, sampled every 10 s: resident memory (VmRSS), latency p50/p99, errors and
 * runs. The figures (soak-figures.ts) are memory slope and p99 drift after a warm-up, each
 * beside the baseline's; printed as a table and written to .bench/soak.json.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/paths.js';
import {
  json,
  type MemoryReading,
  memoryAfterCollection,
  percentile,
  pinning,
  type Server,
  seedUser,
  startServer,
  stop,
} from './processes.js';
import { figureRows, figuresOf, heapRows, type Pair, type Sample, spansFor, type Window } from './soak-figures.js';
import { type Lane, MIX_DESCRIPTION, perform, primeLanes, type Side, Tally } from './soak-mix.js';

const SOAK_MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const SAMPLE_MS = 10_000;
/** How often the open-loop schedule looks for operations that have come due. */
const TICK_MS = 10;
/**
 * Users, each with their personal workspace and team ones: a workspace runs one execution
 * at a time, so runs spread over them, and two per user stays within RUNS_PER_USER's default.
 */
const USERS = 8;
const WORKSPACES_PER_USER = 2;
/** Closed-loop workers per ramp step: never more than the workspaces, so a run always finds an idle one. */
const RAMP_WORKERS = [1, 2, 4, 8, 16];
const RAMP_SECONDS = 15;
const RAMP_WARMUP_SECONDS = 10;
/** The ramp stops once a step adds less than this to the best rate so far. */
const RAMP_GAIN = 1.05;
/**
 * Limits raised, as on every bench server (server.ts), so that the soak measures the work
 * and not refusals: credits for thousands of text-stats runs, and RUNS_PER_SERVER above the
 * number of workspaces, so that at most one run per workspace is the only bound on runs.
 */
const SKILLET_ENV = { SIGNUP_CREDITS: '1000000', RUNS_PER_SERVER: String(USERS * WORKSPACES_PER_USER * 2) };

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const lane = (apiKey: string): Lane => ({ apiKey, busy: false, lastRun: '', lastArtifact: '', runs: 1 });

async function skilletLanes(url: string): Promise<Lane[]> {
  const lanes: Lane[] = [];
  for (let user = 0; user < USERS; user++) {
    const { apiKey, token } = await seedUser(url, `soak-${user}@example.test`);
    lanes.push(lane(apiKey));
    for (let team = 1; team < WORKSPACES_PER_USER; team++) {
      const { id } = await json<{ id: string }>(`${url}/api/v1/workspaces`, {
        method: 'POST',
        headers: { 'x-auth-token': token },
        body: JSON.stringify({ name: `soak ${user}.${team}` }),
      });
      // An API key is bound to the workspace it was made in.
      const { key } = await json<{ key: string }>(`${url}/api/v1/keys`, {
        method: 'POST',
        headers: { 'x-auth-token': token, 'x-workspace-id': id },
        body: JSON.stringify({ label: 'soak' }),
      });
      lanes.push(lane(key));
    }
  }
  return lanes;
}

/** `workers` clients, each making the mix's next operation as soon as its last one ended; operations per second. */
async function closedLoop(side: Side, workers: number, seconds: number): Promise<number> {
  let next = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (performance.now() < end) await perform(side, next++);
    }),
  );
  return next / ((performance.now() - started) / 1000);
}

interface RampStep {
  workers: number;
  operationsPerSecond: number;
  p99Ms: number;
  errors: number;
}

async function measureMaximum(side: Side): Promise<{ maximum: number; steps: RampStep[] }> {
  await closedLoop(side, 4, RAMP_WARMUP_SECONDS);
  side.tally.take();
  const steps: RampStep[] = [];
  let maximum = 0;
  for (const workers of RAMP_WORKERS) {
    const rate = await closedLoop(side, workers, RAMP_SECONDS);
    const { latencies, errors } = side.tally.take();
    const step = { workers, operationsPerSecond: round(rate, 1), p99Ms: round(percentile(latencies, 99)), errors };
    steps.push(step);
    console.log(`ramp: ${workers} workers, ${step.operationsPerSecond} operations/s, p99 ${step.p99Ms} ms, ${errors} errors`);
    const gained = rate >= maximum * RAMP_GAIN;
    maximum = Math.max(maximum, rate);
    if (!gained) break;
  }
  return { maximum, steps };
}

function residentMb(server: Server): number {
  const status = readFileSync(`/proc/${server.process.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) / 1024;
}

function windowOf(server: Server, side: Side, at: number): Window {
  const { latencies, errors, runs, skipped } = side.tally.take();
  const sample: Sample = {
    at: round(at, 1),
    residentMb: round(residentMb(server)),
    requests: latencies.length,
    p50: round(percentile(latencies, 50)),
    p99: round(percentile(latencies, 99)),
    errors,
    runs,
    skipped,
  };
  return { sample, latencies };
}

const describe = ({ residentMb, p50, p99, errors, runs }: Sample) =>
  `rss ${residentMb} MB, p50 ${p50} ms, p99 ${p99} ms, ${errors} errors, ${runs} runs`;

/**
 * The open-loop schedule: operation i goes to both sides at i / rate seconds, whether or
 * not earlier ones have ended. It ends after rate × seconds operations, then waits for the
 * ones in flight, which every request's timeout bounds.
 */
async function openLoop(servers: Pair<Server>, sides: Pair<Side>, rate: number, seconds: number): Promise<Pair<Window[]>> {
  const windows: Pair<Window[]> = { ours: [], base: [] };
  const total = Math.floor(rate * seconds);
  const inFlight = new Set<Promise<void>>();
  const started = performance.now();
  const take = () => {
    const at = (performance.now() - started) / 1000;
    const ours = windowOf(servers.ours, sides.ours, at);
    const base = windowOf(servers.base, sides.base, at);
    windows.ours.push(ours);
    windows.base.push(base);
    console.log(`[${Math.round(at)} s] skillet: ${describe(ours.sample)} | baseline: ${describe(base.sample)}`);
  };
  let sent = 0;
  let nextSample = SAMPLE_MS;
  while (sent < total) {
    const elapsed = performance.now() - started;
    for (const due = Math.min(total, Math.floor((elapsed / 1000) * rate)); sent < due; sent++) {
      for (const side of [sides.ours, sides.base]) {
        const operation = perform(side, sent);
        inFlight.add(operation);
        void operation.finally(() => inFlight.delete(operation));
      }
    }
    // The last window is taken after the drain, so that it holds the operations still in flight.
    if (elapsed >= nextSample && nextSample < seconds * 1000) {
      take();
      nextSample += SAMPLE_MS;
    }
    await settle(TICK_MS);
  }
  await Promise.all(inFlight);
  take();
  return windows;
}

/**
 * The live heap of both servers after a forced collection (SIGUSR2, see server.ts): taken
 * only outside the schedule, before and after it, as a collection pauses the server. Its
 * growth tells objects kept alive apart from resident memory the allocator holds on to.
 */
async function collected(servers: Pair<Server>): Promise<Pair<MemoryReading>> {
  return { ours: await memoryAfterCollection(servers.ours), base: await memoryAfterCollection(servers.base) };
}

export async function soak(): Promise<void> {
  const seconds = SOAK_MINUTES * 60;
  const spans = spansFor(seconds);
  const ours = await startServer('skillet', JSON.stringify(SKILLET_ENV));
  const base = await startServer('soak-baseline');
  try {
    const sides: Pair<Side> = {
      ours: { url: ours.url, lanes: await skilletLanes(ours.url), tally: new Tally() },
      base: {
        url: base.url,
        lanes: Array.from({ length: USERS * WORKSPACES_PER_USER }, () => lane('baseline')),
        tally: new Tally(),
      },
    };
    await primeLanes(sides.ours);
    await primeLanes(sides.base);
    console.log(`\nSoak mix, ${MIX_DESCRIPTION}; ${USERS} users x ${WORKSPACES_PER_USER} workspaces`);
    const { maximum, steps } = await measureMaximum(sides.ours);
    const rate = maximum / 2;
    const loadAtStart = loadavg();
    console.log(`maximum ${round(maximum, 1)} operations/s; soaking at ${round(rate, 1)}/s for ${SOAK_MINUTES} min`);
    const heapBefore = await collected({ ours, base });
    const windows = await openLoop({ ours, base }, sides, rate, seconds);
    const heapAfter = await collected({ ours, base });
    const loadAtEnd = loadavg();
    const figures = { ours: figuresOf(windows.ours, spans), base: figuresOf(windows.base, spans) };
    const rows = [...figureRows(figures.ours, figures.base, spans), ...heapRows(heapBefore, heapAfter)];
    const placement = pinning ? 'both servers on core 1, load generator on core 0' : 'unpinned';
    const loads = (load: number[]) => load.map((value) => value.toFixed(2)).join(' ');
    console.log(
      `\nSoak: Skillet vs a bare Fastify baseline, the same open-loop schedule at once: ${round(rate, 1)} mix ` +
        `operations/s (half of the ${round(maximum, 1)}/s measured) for ${SOAK_MINUTES} min, sampled every ` +
        `${SAMPLE_MS / 1000} s; warm-up ${round(spans.warmup / 60, 1)} min left out; ${placement}; ` +
        `load average (1, 5, 15 min) ${loads(loadAtStart)} at the start, ${loads(loadAtEnd)} at the end\n`,
    );
    console.table(rows);
    for (const [name, side] of Object.entries(sides))
      if (side.tally.firstErrors.length > 0) console.log(`${name}: first errors:\n  ${side.tally.firstErrors.join('\n  ')}`);
    const file = path.join(PROJECT_ROOT, '.bench', 'soak.json');
    await mkdir(path.dirname(file), { recursive: true });
    const samples = { ours: windows.ours.map((window) => window.sample), base: windows.base.map((window) => window.sample) };
    const report = {
      mix: MIX_DESCRIPTION,
      minutes: SOAK_MINUTES,
      spans,
      maximum,
      rate,
      steps,
      loadAtStart,
      loadAtEnd,
      heapBefore,
      heapAfter,
    };
    await writeFile(file, `${JSON.stringify({ ...report, figures, rows, samples }, null, 2)}\n`);
    console.log(`figures and every sample: ${file}`);
  } finally {
    await stop(ours);
    await stop(base);
  }
}

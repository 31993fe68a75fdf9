/**
 * Distributed mode (DESIGN §12), all in one run on the machine's PostgreSQL and Redis:
 *
 * - runs per second and delivered SSE events per second through one API node and through
 *   two (the same two workers behind both), and the scaling ratio;
 * - the delivery latency of a run's events in embedded mode (one process, PostgreSQL, the
 *   in-process bus) beside distributed mode (API node + worker, announced over Redis), and
 *   what the Redis hop adds.
 *
 * Every node is a real process of the built code (`skillet serve`, `skillet worker`), on a
 * PostgreSQL schema and a Redis key prefix of this run's own, removed at the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fakeStripe } from '../test/fakes/stripe.js';
import { costRows, measureCosts } from './cluster-costs.js';
import {
  adminQuery,
  createRun,
  dropRedisKeys,
  freshSchema,
  missingServices,
  type Node,
  RUN_CLIENTS,
  seedUsers,
  settle,
  startNode,
  startRun,
  stopAll,
  streamUrl,
  type User,
} from './cluster-nodes.js';
import { subscribe } from './cluster-subscriptions.js';
import { percentile } from './processes.js';
import { WEBHOOK_SECRET } from './webhooks.js';

/** Runs per second: RUN_CLIENTS clients (cluster-nodes.ts), this many runs a round, each of this input. */
const RUNS_PER_ROUND = 40;
const RUN_INPUT = '1 0';
/** Events per second: this many runs at once, each watched by this many subscribers. */
const EVENT_RUNS = 4;
const SUBSCRIBERS_PER_RUN = 64;
const EVENT_TICKS = 200;
/** A ticker run stores its ticks plus user.message, status_running, execution.result and status_idle. */
const EVENTS_PER_RUN = EVENT_TICKS + 4;
/** Latency: runs in turns, embedded then distributed, each one subscriber, ticks spaced out. */
const LATENCY_ROUNDS = 8;
const LATENCY_TICKS = 100;
const LATENCY_TICK_MS = 10;
/**
 * Throughput rounds alternate 1, 2, 2, 1 API nodes, twice (after one unmeasured round of
 * each to warm the processes up), so that a drift over the run (tables growing, caches filling)
 * falls on both sides alike; each side's figure is its work over its time, all rounds
 * together.
 */
const ROUND_ORDER = [1, 2, 2, 1, 1, 2, 2, 1] as const;

/** A stream that never ends would hang the whole bench: a minute is far beyond any round here. */
async function deadline<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over a minute`)), 60_000);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

interface Throughput {
  /** Units of work done (runs, or delivered events) over all measured rounds. */
  work: number;
  ms: number;
  /** Ticks the skill printed that its run did not store (see eventsRound). */
  lost: number;
}

/** A side's total over its rounds, and each round's rate: how far apart they are shows the noise. */
interface Side {
  total: Throughput;
  rates: number[];
}

const rate = (measured: Throughput) => measured.work / (measured.ms / 1000);

/**
 * `runs` short runs, each the whole of what a client does: create the execution, start
 * it, read its stream to session.status_idle. RUN_CLIENTS clients take runs from one
 * count, client i always through API node i mod (nodes in use).
 */
async function runsRound(apiNodes: Node[], users: User[], runs: number): Promise<Throughput> {
  let left = runs;
  const started = performance.now();
  await Promise.all(
    users.map(async (user, i) => {
      const node = apiNodes[i % apiNodes.length] as Node;
      while (left > 0) {
        left--;
        const { id } = await createRun(node, user, RUN_INPUT);
        await startRun(node, user, id, RUN_INPUT);
        const text = await (await fetch(await streamUrl(node, user, id), { signal: AbortSignal.timeout(60_000) })).text();
        if (!text.includes('"type":"session.status_idle"'))
          throw new Error(`run ${id}: its stream ended without session.status_idle`);
      }
    }),
  );
  return { work: runs, ms: performance.now() - started, lost: 0 };
}

/**
 * EVENT_RUNS runs of EVENT_TICKS ticks with no pause, started together, each watched by
 * SUBSCRIBERS_PER_RUN subscribers spread over the API nodes in use (subscriber j of a run
 * on node j mod nodes). Measured from the first start to the last stream's end; the work
 * is the event frames the subscribers received, and every subscriber must have received
 * every event its run stored, in order.
 *
 * What a run stores is read back rather than assumed: a ticker printing its ticks with no
 * pause can finish printing and exit more than a second before the runner has stored them
 * one by one, and the script runtime cuts the skill's stdout PIPE_GRACE_MS (1 s) after
 * the process exits, so the tail is dropped and the run still completes. Those ticks are
 * counted and reported, not hidden.
 */
async function eventsRound(apiNodes: Node[], users: User[], schema: string): Promise<Throughput> {
  const input = `${EVENT_TICKS} 0`;
  const runs = await Promise.all(
    users.slice(0, EVENT_RUNS).map(async (user, r) => {
      const starter = apiNodes[r % apiNodes.length] as Node;
      const { id } = await createRun(starter, user, input);
      const urls = await Promise.all(apiNodes.map((node) => streamUrl(node, user, id)));
      const subscribers = Array.from({ length: SUBSCRIBERS_PER_RUN }, (_, j) =>
        subscribe(urls[j % urls.length] as string, false),
      );
      return { user, id, starter, subscribers };
    }),
  );
  const all = runs.flatMap((run) => run.subscribers);
  await deadline(Promise.all(all.map((subscriber) => subscriber.connected)), 'subscribers connecting');
  // `: connected` goes out before the stream's subscription is in effect; give it time, so
  // that what is measured is live delivery rather than a replay from the store.
  await settle(300);
  const started = performance.now();
  await Promise.all(runs.map((run) => startRun(run.starter, run.user, run.id, input)));
  await deadline(Promise.all(all.map((subscriber) => subscriber.ended)), 'an events round');
  const ms = performance.now() - started;
  const stored = await adminQuery<{ execution_id: string; last_sequence: number }>(
    `select execution_id, last_sequence from ${schema}.executions where execution_id = any($1)`,
    [runs.map((run) => run.id)],
  );
  const storedOf = new Map(stored.map((row) => [row.execution_id, row.last_sequence]));
  let lost = 0;
  for (const run of runs) {
    const last = storedOf.get(run.id) ?? 0;
    lost += EVENTS_PER_RUN - last;
    for (const subscriber of run.subscribers)
      if (!subscriber.inOrder || subscriber.frames !== last)
        throw new Error(`run ${run.id}: a subscriber received ${subscriber.frames} of the ${last} events stored`);
  }
  return { work: all.reduce((sum, subscriber) => sum + subscriber.frames, 0), ms, lost };
}

/** Both throughputs through one API node and through two, in ROUND_ORDER, after a warm-up of each. */
async function scaling(apiNodes: [Node, Node], round: (nodes: Node[]) => Promise<Throughput>): Promise<{ one: Side; two: Side }> {
  const sides = {
    one: { total: { work: 0, ms: 0, lost: 0 }, rates: [] as number[] },
    two: { total: { work: 0, ms: 0, lost: 0 }, rates: [] as number[] },
  };
  await round(apiNodes.slice(0, 1));
  await round(apiNodes);
  for (const count of ROUND_ORDER) {
    const measured = await round(apiNodes.slice(0, count));
    const { total, rates } = count === 1 ? sides.one : sides.two;
    total.work += measured.work;
    total.ms += measured.ms;
    total.lost += measured.lost;
    rates.push(rate(measured));
  }
  return sides;
}

/**
 * How the delivery latency is measured: every event is stored with created_at, the wall
 * clock (Date.now(), millisecond resolution) of the process that produced it, read just
 * before the transaction that stores it; the subscriber notes Date.now() as each frame
 * arrives. The two clocks are one clock (one machine), so receipt minus created_at is the
 * time from an event being produced to a subscriber having it: the store write, the
 * announcement (in-process bus, or Redis pub/sub from the worker to the API node) and the
 * SSE write. Both modes store on the same PostgreSQL, so their difference is what the
 * Redis hop adds, net of what moving the runner to another process takes off the one that
 * serves the stream. Only agent.message events count: those are produced by the runner, on
 * the worker in distributed mode. Both times are whole milliseconds (created_at has no
 * more), so a sample is within a millisecond of the truth and the percentiles are whole
 * milliseconds; the truncations favour neither mode and average out in the mean, which is
 * finer. One run at a time, ticks LATENCY_TICK_MS apart, so the figure is the hop's, not a
 * queue's.
 */
async function latencyRun(node: Node, user: User, schema: string): Promise<number[]> {
  const input = `${LATENCY_TICKS} ${LATENCY_TICK_MS}`;
  const { id } = await createRun(node, user, input);
  const subscription = subscribe(await streamUrl(node, user, id), true);
  await deadline(subscription.connected, 'a latency subscriber connecting');
  await settle(200);
  await startRun(node, user, id, input);
  await deadline(subscription.ended, 'a latency run');
  const stored = await adminQuery<{ sequence: number; created_at: Date }>(
    `select sequence, created_at from ${schema}.execution_events where execution_id = $1 and type = 'agent.message'`,
    [id],
  );
  if (stored.length !== LATENCY_TICKS || subscription.messageTimes.size !== LATENCY_TICKS)
    throw new Error(`latency run ${id}: ${stored.length} stored, ${subscription.messageTimes.size} received`);
  return stored.map((row) => (subscription.messageTimes.get(row.sequence) as number) - row.created_at.getTime());
}

interface LatencySide {
  node: Node;
  user: User;
  schema: string;
}

async function latencies(
  embedded: LatencySide,
  distributed: LatencySide,
): Promise<{ embedded: number[]; distributed: number[] }> {
  const samples = { embedded: [] as number[], distributed: [] as number[] };
  // One unmeasured run each: the first run of a process pays for compiling its code path.
  await latencyRun(embedded.node, embedded.user, embedded.schema);
  await latencyRun(distributed.node, distributed.user, distributed.schema);
  for (let round = 0; round < LATENCY_ROUNDS; round++) {
    samples.embedded.push(...(await latencyRun(embedded.node, embedded.user, embedded.schema)));
    samples.distributed.push(...(await latencyRun(distributed.node, distributed.user, distributed.schema)));
  }
  return samples;
}

const round1 = (value: number) => Number(value.toFixed(1));
const ratio = (a: number, b: number) => Number((a / b).toFixed(2));

/**
 * `required`: asked for by name (BENCH_ONLY=cluster), so a machine without PostgreSQL or
 * Redis is an error; in the full run it is skipped, saying why.
 */
export async function clusterScaling(required: boolean): Promise<void> {
  const missing = await missingServices();
  if (missing) {
    if (required) throw new Error(`The cluster benchmark needs PostgreSQL and Redis: ${missing}`);
    console.log(`
Distributed mode: skipped, ${missing}`);
    return;
  }
  // Read before this suite adds any load: what else the machine was doing colours every figure.
  const loadBefore = loadavg()[0] ?? 0;
  const tag = randomBytes(4).toString('hex');
  const redisPrefix = `skillet-bench-${tag}:`;
  const dataDir = await mkdtemp(path.join(tmpdir(), 'skillet-bench-cluster-'));
  const clusterSchema = await freshSchema('bench_cluster');
  const embeddedSchema = await freshSchema('bench_embedded');
  // The payment provider of the capacity model's webhook row.
  const stripe = await fakeStripe();
  try {
    const cluster = { schema: clusterSchema, dataDir, redisPrefix };
    const payments = { STRIPE_SECRET_KEY: 'sk_test_bench', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_URL: stripe.url };
    const apiNodes = (await Promise.all([
      startNode({ ...cluster, name: 'api-a', command: 'serve', extraEnv: payments }),
      startNode({ ...cluster, name: 'api-b', command: 'serve', extraEnv: payments }),
    ])) as [Node, Node];
    const workers = await Promise.all([
      startNode({ ...cluster, name: 'worker-1', command: 'worker' }),
      startNode({ ...cluster, name: 'worker-2', command: 'worker' }),
    ]);
    // Embedded: one process that answers and runs, on PostgreSQL, with no REDIS_URL. It sits
    // idle through the throughput rounds.
    const embedded = await startNode({ name: 'embedded', command: 'serve', schema: embeddedSchema, dataDir });

    const users = await seedUsers(apiNodes[0], `cluster-${tag}`, RUN_CLIENTS);
    const runs = await scaling(apiNodes, (inUse) => runsRound(inUse, users, RUNS_PER_ROUND));
    const events = await scaling(apiNodes, (inUse) => eventsRound(inUse, users, clusterSchema));
    const [embeddedUser] = (await seedUsers(embedded, `embedded-${tag}`, 1)) as [User];
    const latency = await latencies(
      { node: embedded, user: embeddedUser, schema: embeddedSchema },
      { node: apiNodes[0], user: users[0] as User, schema: clusterSchema },
    );
    const [webhookUser] = (await seedUsers(apiNodes[0], `payments-${tag}`, 1)) as [User];
    const costs = await measureCosts({
      api: apiNodes[0],
      nodes: [...apiNodes, ...workers],
      workers,
      webhookUser,
      runs: (count) => runsRound(apiNodes.slice(0, 1), users, count),
      events: async () => {
        const round = await eventsRound(apiNodes.slice(0, 1), users, clusterSchema);
        return { delivered: round.work, stored: EVENT_RUNS * EVENTS_PER_RUN - round.lost };
      },
    });

    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const latencyRow = (p: number | 'mean') => {
      const of = (samples: number[]) => round1(p === 'mean' ? mean(samples) : percentile(samples, p));
      const ours = of(latency.distributed);
      const base = of(latency.embedded);
      return {
        measure: `delivery latency ${p === 'mean' ? 'mean' : `p${p}`}, event stored to subscriber (ms)`,
        baseline: base,
        measured: ours,
        ratio: ratio(ours, base),
        added: `${round1(ours - base)} ms`,
        rounds: '-',
      };
    };
    const spread = (side: Side, digits: number) =>
      `${Math.min(...side.rates).toFixed(digits)}-${Math.max(...side.rates).toFixed(digits)}`;
    const throughputRow = (measure: string, one: Side, two: Side, digits: number) => ({
      measure,
      baseline: Number(rate(one.total).toFixed(digits)),
      measured: Number(rate(two.total).toFixed(digits)),
      ratio: ratio(rate(two.total), rate(one.total)),
      added: '-',
      rounds: `1: ${spread(one, digits)}; 2: ${spread(two, digits)}`,
    });
    const rows = [
      throughputRow(`runs/s: ticker "${RUN_INPUT}", ${RUN_CLIENTS} clients, 2 workers`, runs.one, runs.two, 1),
      throughputRow(
        `delivered SSE events/s: ${EVENT_RUNS} runs of "${EVENT_TICKS} 0", ${SUBSCRIBERS_PER_RUN} subscribers each`,
        events.one,
        events.two,
        0,
      ),
      latencyRow('mean'),
      latencyRow(50),
      latencyRow(90),
      latencyRow(99),
    ];
    console.log(
      '\nDistributed mode (PostgreSQL + Redis), real processes, in the same run. Throughput rows:' +
        ' baseline = 1 API node, measured = 2 API nodes (clients spread), ratio = scaling, rounds = the slowest and' +
        ' fastest round of each.' +
        ` Latency rows: baseline = embedded (one process, no Redis), measured = API node + worker over Redis;` +
        ` ${LATENCY_ROUNDS * LATENCY_TICKS} events each.\n`,
    );
    console.table(rows);
    console.log(
      `Note: this machine has ${cpus().length} CPUs, shared by the load generator, both API nodes, both workers,` +
        ' their skill processes, PostgreSQL and Redis; a second API node adds no CPU, so a scaling ratio near 1 is expected here.' +
        ` The 1-minute load average before the suite started was ${loadBefore.toFixed(2)}.`,
    );
    console.log(
      '\nCapacity model: what each role spends per unit of work, through one API node and both workers, less what' +
        ' the idle cluster spends over the same time (first row). CPU from /proc (10 ms ticks); statements from the' +
        " nodes' skillet_db_statements_total; Redis commands from the server's count. docs/operations.md turns these" +
        ' into nodes for a stated load.\n',
    );
    console.table(costRows(costs));
    const lost = events.one.total.lost + events.two.total.lost;
    if (lost > 0) {
      const printed = (ROUND_ORDER.length * EVENT_RUNS * EVENT_TICKS).toLocaleString('en');
      console.log(
        `Also: ${lost} of the ${printed} ticks printed in the measured events rounds were never stored (runs completed` +
          ' regardless): the script runtime cuts stdout 1 s after the skill exits while the runner is still storing' +
          ' its backlog (src/runtime/script/script-runtime.ts, PIPE_GRACE_MS). Every stored event reached every subscriber.',
      );
    }
  } finally {
    await stopAll();
    await stripe.close();
    await adminQuery(`drop schema ${clusterSchema} cascade`);
    await adminQuery(`drop schema ${embeddedSchema} cascade`);
    await dropRedisKeys(redisPrefix);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * What each role of a cluster costs per unit of work, for the capacity model in
 * docs/operations.md ("Capacity planning"). A machine of two cores cannot show a second
 * node adding throughput; what it can show is what one run, one delivered event and one
 * payment webhook take from each process, and from PostgreSQL and Redis, so that the nodes
 * a stated load needs can be worked out on paper.
 *
 * Each figure is a difference of readings around a burst of one kind of work, less what the
 * same processes cost while idle over the same time (measured first, side by side: the
 * baseline). CPU is read from /proc (user + system time, in clock ticks); a worker's skill
 * processes are its reaped children. Statements are the nodes' own count
 * (skillet_db_statements_total); Redis commands are the server's total_commands_processed.
 */
import { Redis } from 'ioredis';
import { type Node, REDIS_URL, settle, type User } from './cluster-nodes.js';
import { metricValue } from './metrics.js';
import { type CpuTimes, cpuTimes } from './processes.js';
import { blast, checkouts, deliveriesFor } from './webhooks.js';

const IDLE_MS = 5000;
const RUNS = 240;
const WEBHOOK_CHECKOUTS = 1000;

interface Reading {
  at: number;
  cpu: Map<string, CpuTimes>;
  statements: number;
  redisCommands: number;
}

async function statementsOf(node: Node): Promise<number> {
  const statements = await metricValue(node.metricsUrl, 'skillet_db_statements_total');
  if (statements === undefined) throw new Error(`${node.name} reports no skillet_db_statements_total`);
  return statements;
}

async function redisCommands(redis: Redis): Promise<number> {
  const stats = await redis.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(stats)?.[1] ?? Number.NaN);
}

async function read(nodes: Node[], redis: Redis): Promise<Reading> {
  const statements = await Promise.all(nodes.map(statementsOf));
  return {
    at: performance.now(),
    cpu: new Map(nodes.map((node) => [node.name, cpuTimes(`/proc/${node.process.pid}/stat`)])),
    statements: statements.reduce((sum, count) => sum + count, 0),
    redisCommands: await redisCommands(redis),
  };
}

/** What a span between two readings cost: per role, and per second of it. */
interface Spent {
  ms: number;
  apiCpu: number;
  workerCpu: number;
  skillCpu: number;
  statements: number;
  redisCommands: number;
}

function spent(before: Reading, after: Reading, api: Node, workers: Node[]): Spent {
  const delta = (node: Node, part: keyof CpuTimes) =>
    (after.cpu.get(node.name)?.[part] ?? 0) - (before.cpu.get(node.name)?.[part] ?? 0);
  return {
    ms: after.at - before.at,
    apiCpu: delta(api, 'own'),
    workerCpu: workers.reduce((sum, worker) => sum + delta(worker, 'own'), 0),
    skillCpu: workers.reduce((sum, worker) => sum + delta(worker, 'children'), 0),
    statements: after.statements - before.statements,
    // The INFO command that took the first reading is counted in the second.
    redisCommands: after.redisCommands - before.redisCommands - 1,
  };
}

/** A burst's cost per unit, less what idling costs over the burst's time. */
function perUnit(burst: Spent, idle: Spent, units: number): Spent {
  const net = (key: Exclude<keyof Spent, 'ms'>) => (burst[key] - (idle[key] * burst.ms) / idle.ms) / units;
  return {
    ms: burst.ms / units,
    apiCpu: net('apiCpu'),
    workerCpu: net('workerCpu'),
    skillCpu: net('skillCpu'),
    statements: net('statements'),
    redisCommands: net('redisCommands'),
  };
}

function perSecond(idle: Spent): Spent {
  const seconds = idle.ms / 1000;
  return {
    ms: 1000,
    apiCpu: idle.apiCpu / seconds,
    workerCpu: idle.workerCpu / seconds,
    skillCpu: idle.skillCpu / seconds,
    statements: idle.statements / seconds,
    redisCommands: idle.redisCommands / seconds,
  };
}

export interface CostSetting {
  /** The API node every request of the measurement goes through. */
  api: Node;
  /** Every node of the cluster: all are read, as all take part (and idle ones still poll). */
  nodes: Node[];
  workers: Node[];
  webhookUser: User;
  /** Runs `count` short runs through `api`, each created, started and read to its end. */
  runs(count: number): Promise<unknown>;
  /** One events round through `api` alone: how many event frames subscribers received, and how many events were stored. */
  events(): Promise<{ delivered: number; stored: number }>;
}

export interface Costs {
  idlePerSecond: Spent;
  perRun: Spent;
  perDeliveredEvent: Spent;
  perStoredEvent: Spent;
  perWebhook: Spent;
  runs: number;
  delivered: number;
  webhooks: number;
}

export async function measureCosts(setting: CostSetting): Promise<Costs> {
  const { api, nodes, workers } = setting;
  const redis = new Redis(REDIS_URL);
  try {
    const around = async (work: () => Promise<unknown>) => {
      const before = await read(nodes, redis);
      await work();
      return spent(before, await read(nodes, redis), api, workers);
    };
    const idle = await around(() => settle(IDLE_MS));
    const runs = await around(() => setting.runs(RUNS));
    let counts = { delivered: 0, stored: 0 };
    const events = await around(async () => {
      counts = await setting.events();
    });
    const headers = { 'x-api-key': setting.webhookUser.apiKey };
    const deliveries = deliveriesFor(await checkouts(api.url, headers, WEBHOOK_CHECKOUTS), 1);
    const webhooks = await around(() => blast(api.url, deliveries));
    return {
      idlePerSecond: perSecond(idle),
      perRun: perUnit(runs, idle, RUNS),
      perDeliveredEvent: perUnit(events, idle, counts.delivered),
      perStoredEvent: perUnit(events, idle, counts.stored),
      perWebhook: perUnit(webhooks, idle, deliveries.length),
      runs: RUNS,
      delivered: counts.delivered,
      webhooks: deliveries.length,
    };
  } finally {
    redis.disconnect();
  }
}

const fixed = (value: number, digits: number) => Number(value.toFixed(digits));

/** The table the suite prints: one row per unit of work, CPU per role, then statements and commands. */
export function costRows(costs: Costs) {
  const row = (measure: string, cost: Spent, unit: 'ms' | 'µs', digits: number) => {
    const cpu = (ms: number) => `${fixed(unit === 'µs' ? ms * 1000 : ms, digits)} ${unit}`;
    return {
      measure,
      'API node CPU': cpu(cost.apiCpu),
      'workers CPU': cpu(cost.workerCpu),
      'skill processes CPU': cpu(cost.skillCpu),
      'PG statements': fixed(cost.statements, 2),
      'Redis commands': fixed(cost.redisCommands, 2),
    };
  };
  return [
    row('idle cluster, per second (taken off the rows below)', costs.idlePerSecond, 'ms', 1),
    row(`per run: ticker "1 0", created, started, streamed to its end (${costs.runs})`, costs.perRun, 'ms', 2),
    row(`per SSE event delivered to a subscriber (${costs.delivered.toLocaleString('en')})`, costs.perDeliveredEvent, 'µs', 1),
    row('per event a run produced (the same rounds)', costs.perStoredEvent, 'µs', 0),
    row(`per payment webhook, 10% of them repeats (${costs.webhooks.toLocaleString('en')})`, costs.perWebhook, 'ms', 2),
  ];
}

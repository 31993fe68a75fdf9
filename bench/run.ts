/**
 * `npm run bench`: every benchmark, each beside a baseline measured in the same run on the
 * same machine. BENCH_ONLY=http, streams, artifacts, webhooks, agent, computer, threads, mcp,
 * app or cluster runs one suite (cluster needs the machine's PostgreSQL and Redis: see bench/cluster.ts);
 * BENCH_ONLY=replay, fan-out-memory or run-cost runs only that measure of the streams suite.
 * BENCH_ONLY=soak runs the soak (bench/soak.ts), never part of the all-suites run: it takes
 * SOAK_MINUTES, 30 by default.
 */
import { agentRuntime } from './agent.js';
import { appFirstLoad } from './app.js';
import { artifactDownloads } from './artifacts.js';
import { clusterScaling } from './cluster.js';
import { computerBench } from './computer.js';
import { httpOverhead } from './http-overhead.js';
import { withLoadReadings } from './load.js';
import { mcpToolCalls } from './mcp.js';
import { pinSelf } from './processes.js';
import { soak } from './soak.js';
import { streams } from './streams.js';
import { threadFanOut } from './threads.js';
import { webhookThroughput } from './webhooks.js';

pinSelf();
const only = process.env.BENCH_ONLY;
const STREAM_PARTS = ['replay', 'fan-out-memory', 'run-cost'] as const;
const suites: [name: string, runs: boolean, suite: () => Promise<void>][] = [
  ['http', !only || only === 'http', () => httpOverhead()],
  ['streams', !only || only === 'streams', () => streams()],
  ...STREAM_PARTS.map((part): [string, boolean, () => Promise<void>] => [part, only === part, () => streams(part)]),
  ['artifacts', !only || only === 'artifacts', () => artifactDownloads()],
  ['webhooks', !only || only === 'webhooks', () => webhookThroughput()],
  ['agent', !only || only === 'agent', () => agentRuntime()],
  ['computer', !only || only === 'computer', () => computerBench()],
  ['threads', !only || only === 'threads', () => threadFanOut()],
  ['mcp', !only || only === 'mcp', () => mcpToolCalls()],
  ['app', !only || only === 'app', () => appFirstLoad()],
  ['cluster', !only || only === 'cluster', () => clusterScaling(only === 'cluster')],
];
for (const [name, runs, suite] of suites) if (runs) await withLoadReadings(name, suite);
if (only === 'soak') await withLoadReadings('soak', soak);

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
import { mcpToolCalls } from './mcp.js';
import { pinSelf } from './processes.js';
import { soak } from './soak.js';
import { streams } from './streams.js';
import { threadFanOut } from './threads.js';
import { webhookThroughput } from './webhooks.js';

pinSelf();
const only = process.env.BENCH_ONLY;
if (!only || only === 'http') await httpOverhead();
if (!only || only === 'streams') await streams();
if (only === 'replay' || only === 'fan-out-memory' || only === 'run-cost') await streams(only);
if (!only || only === 'artifacts') await artifactDownloads();
if (!only || only === 'webhooks') await webhookThroughput();
if (!only || only === 'agent') await agentRuntime();
if (!only || only === 'computer') await computerBench();
if (!only || only === 'threads') await threadFanOut();
if (!only || only === 'mcp') await mcpToolCalls();
if (!only || only === 'app') await appFirstLoad();
if (!only || only === 'cluster') await clusterScaling(only === 'cluster');
if (only === 'soak') await soak();

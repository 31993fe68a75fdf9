/**
 * `npm run bench`: every benchmark, each beside a baseline measured in the same run on the
 * same machine. BENCH_ONLY=http, streams, artifacts or webhooks runs one suite;
 * BENCH_ONLY=replay, fan-out-memory or run-cost runs only that measure of the streams suite.
 */
import { artifactDownloads } from './artifacts.js';
import { httpOverhead } from './http-overhead.js';
import { pinSelf } from './processes.js';
import { streams } from './streams.js';
import { webhookThroughput } from './webhooks.js';

pinSelf();
const only = process.env.BENCH_ONLY;
if (!only || only === 'http') await httpOverhead();
if (!only || only === 'streams') await streams();
if (only === 'replay' || only === 'fan-out-memory' || only === 'run-cost') await streams(only);
if (!only || only === 'artifacts') await artifactDownloads();
if (!only || only === 'webhooks') await webhookThroughput();

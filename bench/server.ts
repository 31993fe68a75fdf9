/**
 * One server under load, in its own process so the load generator does not share its
 * event loop: `skillet` (the real app on a fresh SQLite database) or `baseline` (a bare
 * Fastify app answering the same JSON from memory). Prints its URL on the first line.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, stat } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import Fastify from 'fastify';
import { pino } from 'pino';
import { buildApp } from '../src/app.js';
import { systemClock } from '../src/clock.js';
import { loadConfig } from '../src/config-load.js';
import { migrateToLatest } from '../src/db/migrate.js';
import { openConfiguredDatabase } from '../src/db/open-configured.js';
import { MemoryRateLimitStore } from '../src/identity/rate-limit-store.js';
import { PROJECT_ROOT } from '../src/paths.js';
import { METRICS_TOKEN } from './metrics.js';
import { soakBaseline } from './soak-baseline.js';

export const BASELINE_ME = {
  user: {
    id: '6f1c1b4e-2b1a-4c55-9d8e-0c1f7a1d2e3f',
    email: 'bench@example.test',
    isAdmin: false,
    personalWorkspaceId: '0d4a1f6e-5b7c-4e2a-8f3d-9a1b2c3d4e5f',
    createdAt: '2026-11-22T00:00:00.000Z',
  },
  workspace: { id: '0d4a1f6e-5b7c-4e2a-8f3d-9a1b2c3d4e5f', name: null, personal: true, role: 'owner' },
  credential: { type: 'api_key', id: '1e2d3c4b-5a69-4788-9766-554433221100' },
  tier: 'paygmode',
};

/** A port free right now, so the URLs the server hands out can name it. */
async function freePort(): Promise<number> {
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** How the server started here is closed; nothing to close for the baselines. */
let closeApp: () => Promise<unknown> = () => Promise.resolve();

async function skillet(extraEnv: Record<string, string> = {}): Promise<string> {
  const config = await loadConfig({
    DATA_DIR: await mkdtemp(path.join(tmpdir(), 'skillet-bench-')),
    PORT: String(await freePort()),
    // Production's defaults: request logs at info (on stderr here, as stdout carries this
    // process's answers to the bench), metrics on, the sandbox as detected, warm pools filled.
    METRICS_TOKEN,
    // Rate limiting stays on, with limits high enough that the run measures the work, not 429s.
    RATE_LIMIT_REST_PER_MINUTE: '10000000',
    RATE_LIMIT_MCP_PER_MINUTE: '10000000',
    RATE_LIMIT_WEBHOOK_PER_MINUTE: '10000000',
    RATE_LIMIT_POLL_BURST: '10000000',
    RATE_LIMIT_POLL_PER_SECOND: '100000',
    RATE_LIMIT_ACTIVATION_INTERVAL_MS: '1',
    PASSWORD_HASH_LOG_N: '10',
    RATE_LIMIT_EXECUTIONS_PER_MINUTE: '10000000',
    // The test skills include `empty`, whose run measures the cost of running anything, and
    // `writer`, which writes the artifact bundle the download benchmark fetches.
    SKILLS_DIR: path.join(PROJECT_ROOT, 'test', 'skills'),
    SKILL_OUTPUT_LIMIT_BYTES: String(256 * 1024 * 1024),
    ...extraEnv,
  });
  const database = openConfiguredDatabase(config);
  await migrateToLatest(database);
  const app = await buildApp({
    config,
    database,
    clock: systemClock,
    rateLimits: new MemoryRateLimitStore(),
    // Written as production writes to stdout (pino's default): asynchronously, a line
    // going out at once unless a write is already under way, when it waits to join the next.
    logStream: pino.destination({ dest: 2, sync: false }),
  });
  const url = await app.listen({ host: '127.0.0.1', port: config.port });
  app.warmSandboxes();
  // Closed on the way out as production closes: the warm sandboxes' folders are unmounted,
  // so the suite can remove the data folder after.
  closeApp = () => app.close();
  return url;
}

async function baseline(): Promise<string> {
  const app = Fastify({ logger: false });
  app.get('/api/v1/me', async () => BASELINE_ME);
  app.post('/api/v1/activate/poll', async (request) => {
    const body = request.body as { device_code?: unknown };
    return { status: typeof body.device_code === 'string' ? 'pending' : 'expired' };
  });
  return app.listen({ host: '127.0.0.1', port: 0 });
}

/**
 * A bare Node SSE server: replays frames it was handed (the very bytes Skillet sent) from
 * memory, and broadcasts a frame to every open connection in a plain loop.
 */
async function sseBaseline(): Promise<string> {
  let frames = '';
  const live = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (request.method === 'POST' && url.pathname === '/frames') {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        frames = Buffer.concat(chunks).toString('utf8');
        response.end();
      });
      return;
    }
    if (url.pathname === '/replay') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(frames);
      return;
    }
    if (url.pathname === '/live') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(': connected\n\n');
      live.add(response);
      request.on('close', () => live.delete(response));
      return;
    }
    if (request.method === 'POST' && url.pathname === '/broadcast') {
      const tick = url.searchParams.get('tick');
      const frame = `id: ${tick}\ndata: {"type":"agent.message","payload":{"content":[{"type":"text","text":"tick ${tick} of 5"}]}}\n\n`;
      for (const connection of live) connection.write(frame);
      response.end();
      return;
    }
    response.writeHead(404).end();
  });
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A bare Fastify route that only checks a Stripe-scheme webhook signature (HMAC-SHA256 of
 * "timestamp.body", compared in constant time) and answers; the floor under any webhook.
 */
async function webhookBaseline(secret: string): Promise<string> {
  const app = Fastify({ logger: false });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.post('/api/v1/billing/webhook', async (request, reply) => {
    const header = String(request.headers['stripe-signature'] ?? '');
    const timestamp = /(?:^|,)t=(\d+)/.exec(header)?.[1];
    const given = Buffer.from(/(?:^|,)v1=([0-9a-f]{64})/.exec(header)?.[1] ?? '', 'hex');
    const expected = createHmac('sha256', secret)
      .update(`${timestamp}.${String(request.body)}`)
      .digest();
    if (!timestamp || given.length !== expected.length || !timingSafeEqual(given, expected))
      return reply.status(400).send({ ok: false });
    return { received: true };
  });
  return app.listen({ host: '127.0.0.1', port: 0 });
}

/**
 * The bare SDK server MCP is measured against: node:http, the SDK's own Node adapter and
 * `createMcpHandler` (stateless, one server per request, as Skillet serves it), with one
 * tool, get_balance, answering Skillet's balance shape from memory. No credential, no
 * database, no rate limit: the floor under any MCP tool call.
 */
async function mcpBaseline(): Promise<string> {
  const balance = { balance: 2000, totalSpent: 0, canExecute: true, isAdmin: false };
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'baseline', version: '0.0.0' });
    server.registerTool('get_balance', { description: 'Shows the balance.' }, async () => ({
      content: [{ type: 'text', text: JSON.stringify(balance) }],
      structuredContent: balance,
    }));
    return server;
  });
  const serve = toNodeHandler(handler);
  const server = createServer((request, response) => void serve(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A bare Node server streaming one file from disk (the ready-made ZIP), as a static file server would. */
async function fileBaseline(file: string): Promise<string> {
  const { size } = await stat(file);
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/zip', 'content-length': size });
    createReadStream(file).pipe(response);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * The least a run screen can be: a page whose one script fetches one line from its server,
 * then shows it beside an enabled Cancel button (what the app bench waits for).
 */
async function pageBaseline(): Promise<string> {
  const page =
    '<!doctype html><html lang="en"><title>baseline</title><main id="root"></main><script type="module" src="/main.js"></script></html>';
  const script = `const line = await (await fetch('/first')).json();
const root = document.getElementById('root');
const button = document.createElement('button');
button.textContent = 'Cancel';
const log = document.createElement('ul');
log.setAttribute('role', 'log');
const item = document.createElement('li');
item.textContent = line.text;
log.append(item);
root.append(button, log);`;
  const server = createServer((request, response) => {
    if (request.url === '/main.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else if (request.url === '/first') response.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"tick 1"}');
    else response.writeHead(200, { 'content-type': 'text/html' }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const [mode, argument, watch] = process.argv.slice(2);
const servers: Record<string, () => Promise<string>> = {
  skillet: () => skillet(argument ? (JSON.parse(argument) as Record<string, string>) : {}),
  baseline,
  'sse-baseline': sseBaseline,
  'file-baseline': () => fileBaseline(argument ?? ''),
  'webhook-baseline': () => webhookBaseline(argument ?? ''),
  'mcp-baseline': mcpBaseline,
  'page-baseline': pageBaseline,
  'soak-baseline': soakBaseline,
};
const url = await (servers[mode ?? ''] ?? baseline)();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    // A close that waits on something (a stream a suite left open) does not hold the suite.
    setTimeout(() => process.exit(0), 5000).unref();
    closeApp()
      .catch((error: unknown) => console.error('the server did not close cleanly', error))
      .finally(() => process.exit(0));
  });
}
/**
 * `loop-delay` after the settings: the server keeps a histogram of its event loop's delay,
 * sampled every millisecond, and SIGUSR2 reports it (since the last report) instead of
 * collecting garbage, since a collection would itself stall the loop being measured.
 */
const loopDelay = watch === 'loop-delay' ? monitorEventLoopDelay({ resolution: 1 }) : undefined;
loopDelay?.enable();
// Memory measures ask for a collection first (the bench starts servers with --expose-gc),
// then read the heap the process reports on its next output line.
process.on('SIGUSR2', () => {
  if (loopDelay) {
    const ms = (ns: number) => ns / 1e6;
    const { count } = loopDelay;
    process.stdout.write(`${JSON.stringify({ p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max), count })}\n`);
    loopDelay.reset();
    return;
  }
  globalThis.gc?.();
  const { heapUsed, external } = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ heapUsed, external })}\n`);
});
process.stdout.write(`${url}\n`);

/**
 * `npm run bench`: each scenario against Skillet and against a bare Fastify baseline in the
 * same run on the same machine, reported as a ratio. Absolute numbers on a shared 2-core
 * machine mean little; the ratio is the figure to watch.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Rounds alternate baseline and Skillet, so drift on a shared machine hits both alike. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const POLLING_DEVICES = 200;

interface Server {
  url: string;
  process: ChildProcess;
}

/**
 * On a machine with two or more cores the server under test and this load generator each
 * get a core of their own (taskset), the same for baseline and Skillet, so that they do
 * not trade places on the scheduler mid-run.
 */
const pinning = availableParallelism() >= 2 && commandExists('taskset');

function commandExists(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

async function startServer(mode: 'skillet' | 'baseline'): Promise<Server> {
  const command = [process.execPath, path.join(import.meta.dirname, 'server.js'), mode];
  const [file, ...args] = pinning ? ['taskset', '-c', '1', ...command] : command;
  const child = spawn(file as string, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
  const [url] = (await once(lines, 'line')) as [string];
  return { url, process: child };
}

async function stop(server: Server): Promise<void> {
  server.process.kill('SIGTERM');
  await once(server.process, 'exit');
}

async function json<T>(url: string, init: RequestInit): Promise<T> {
  const response = await fetch(url, { ...init, headers: { 'content-type': 'application/json', ...init.headers } });
  if (!response.ok) throw new Error(`${init.method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** A user with an API key, and a crowd of devices waiting for approval. */
async function seed(url: string): Promise<{ apiKey: string; deviceCodes: string[] }> {
  const signedIn = await json<{ token: string }>(`${url}/api/v1/auth/signup`, {
    method: 'POST',
    body: JSON.stringify({ email: 'bench@example.test', password: 'bench password' }),
  });
  const key = await json<{ key: string }>(`${url}/api/v1/keys`, {
    method: 'POST',
    headers: { 'x-auth-token': signedIn.token },
    body: JSON.stringify({ label: 'bench' }),
  });
  const deviceCodes: string[] = [];
  for (let i = 0; i < POLLING_DEVICES; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    deviceCodes.push((await json<{ device_code: string }>(`${url}/api/v1/activate`, { method: 'POST' })).device_code);
  }
  return { apiKey: key.key, deviceCodes };
}

interface Measured {
  rps: number;
  p99: number;
  non2xx: number;
}

async function load(options: autocannon.Options): Promise<Measured> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_SECONDS, ...options });
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
}

function meRequest(apiKey: string) {
  return (url: string): autocannon.Options => ({ url: `${url}/api/v1/me`, headers: { 'x-api-key': apiKey } });
}

function pollRequests(deviceCodes: string[]) {
  let next = 0;
  return (url: string): autocannon.Options => ({
    url,
    requests: [
      {
        method: 'POST',
        path: '/api/v1/activate/poll',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => {
          next = (next + 1) % deviceCodes.length;
          return { ...request, body: JSON.stringify({ device_code: deviceCodes[next] }) };
        },
      },
    ],
  });
}

interface Row {
  scenario: string;
  ours: Measured;
  base: Measured;
  ratio: number;
  target: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function compare(request: (url: string) => autocannon.Options, ours: Server, base: Server) {
  await load({ ...request(ours.url), duration: 2 });
  await load({ ...request(base.url), duration: 2 });
  const rounds: { ours: Measured; base: Measured }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const baseResult = await load(request(base.url));
    const ourResult = await load(request(ours.url));
    rounds.push({ ours: ourResult, base: baseResult });
  }
  const ratio = median(rounds.map((round) => round.ours.rps / round.base.rps));
  const pick = (side: 'ours' | 'base'): Measured => ({
    rps: median(rounds.map((round) => round[side].rps)),
    p99: median(rounds.map((round) => round[side].p99)),
    non2xx: rounds.reduce((sum, round) => sum + round[side].non2xx, 0),
  });
  return { ours: pick('ours'), base: pick('base'), ratio };
}

async function main(): Promise<void> {
  if (pinning) spawnSync('taskset', ['-cp', '0', String(process.pid)]);
  const ours = await startServer('skillet');
  const base = await startServer('baseline');
  const rows: Row[] = [];
  try {
    const { apiKey, deviceCodes } = await seed(ours.url);
    const scenarios = [
      { scenario: 'GET /api/v1/me with an API key (rate limiting on)', request: meRequest(apiKey), target: 0.6 },
      { scenario: 'polling storm on POST /api/v1/activate/poll', request: pollRequests(deviceCodes), target: 0.5 },
    ];
    for (const { scenario, request, target } of scenarios) {
      rows.push({ scenario, target, ...(await compare(request, ours, base)) });
    }
  } finally {
    await stop(ours);
    await stop(base);
  }

  const placement = pinning ? 'server and load generator on separate cores' : 'unpinned';
  console.log(
    `\nSkillet vs bare Fastify: ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION_SECONDS} s, ${placement}; medians\n`,
  );
  console.table(
    rows.map((row) => ({
      scenario: row.scenario,
      'skillet req/s': Math.round(row.ours.rps),
      'baseline req/s': Math.round(row.base.rps),
      ratio: Number(row.ratio.toFixed(2)),
      target: `>= ${row.target}`,
      'skillet p99 ms': row.ours.p99,
      'baseline p99 ms': row.base.p99,
      'skillet non-2xx': row.ours.non2xx,
      verdict: row.ratio >= row.target && row.ours.non2xx === 0 ? 'met' : 'MISSED',
    })),
  );
}

await main();

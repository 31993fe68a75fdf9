/**
 * Request overhead: each scenario against Skillet and against a bare Fastify baseline in
 * the same run on the same machine, reported as a ratio.
 */
import autocannon from 'autocannon';
import { json, median, pinning, type Server, seedUser, startServer, stop } from './processes.js';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Rounds alternate baseline and Skillet, so drift on a shared machine hits both alike. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const POLLING_DEVICES = 200;

/** A user with an API key, and a crowd of devices waiting for approval. */
async function seed(url: string): Promise<{ apiKey: string; deviceCodes: string[] }> {
  const { apiKey } = await seedUser(url, 'bench@example.test');
  const deviceCodes: string[] = [];
  for (let i = 0; i < POLLING_DEVICES; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    deviceCodes.push((await json<{ device_code: string }>(`${url}/api/v1/activate`, { method: 'POST' })).device_code);
  }
  return { apiKey, deviceCodes };
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

export async function httpOverhead(): Promise<void> {
  const ours = await startServer('skillet');
  const base = await startServer('baseline');
  const rows: Row[] = [];
  try {
    const { apiKey, deviceCodes } = await seed(ours.url);
    const scenarios = [
      { scenario: 'GET /api/v1/me with an API key (rate limiting on)', request: meRequest(apiKey), target: 0.7 },
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

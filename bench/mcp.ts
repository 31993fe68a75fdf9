/**
 * MCP tool calls: `tools/call` of get_balance against Skillet's /mcp (credential, MCP rate
 * limit, basedmode check, a server built per request, the balance read from the database)
 * and against the same tool on a bare SDK server (see mcp-baseline in server.ts), in both
 * eras the SDK serves: as a 2025 stateless client (what editors ship today) sends it after
 * initialize, and as a 2026-07-28 client sends it (the per-request envelope, as the v2
 * client writes it). Rounds alternate baseline and Skillet and the median of their ratios
 * is reported, as in the other benchmarks.
 */
import autocannon from 'autocannon';
import { json, median, pinning, type Server, seedUser, startServer, stop } from './processes.js';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TARGET = 0.5;

interface Scenario {
  name: string;
  headers: Record<string, string>;
  body: string;
}

const SCENARIOS: Scenario[] = [
  {
    name: 'tools/call get_balance per second, 2025 stateless client',
    headers: { 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_balance', arguments: {} } }),
  },
  {
    name: 'tools/call get_balance per second, 2026-07-28 client',
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_balance' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'get_balance',
        arguments: {},
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  },
];

/** A basedmode person (the local test-mode checkout's subscription) and a key made after it. */
async function basedmodeKey(url: string): Promise<string> {
  const { token } = await seedUser(url, 'mcp-bench@example.test');
  const headers = { 'x-auth-token': token };
  const { checkoutUrl } = await json<{ checkoutUrl: string }>(`${url}/api/v1/billing/subscribe`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ email: 'mcp-bench@example.test', successUrl: 'https://x.test/ok', cancelUrl: 'https://x.test/no' }),
  });
  const paid = await fetch(`${checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
  if (paid.status !== 303) throw new Error(`the subscription checkout answered ${paid.status}`);
  const { key } = await json<{ key: string }>(`${url}/api/v1/keys`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ label: 'mcp bench' }),
  });
  return key;
}

interface Measured {
  rps: number;
  p99: number;
  non2xx: number;
}

const JSON_RPC_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function load(
  url: string,
  scenario: Scenario,
  auth: Record<string, string>,
  duration = DURATION_SECONDS,
): Promise<Measured> {
  const result = await autocannon({
    url: `${url}/mcp`,
    method: 'POST',
    connections: CONNECTIONS,
    duration,
    headers: { ...JSON_RPC_HEADERS, ...scenario.headers, ...auth },
    body: scenario.body,
  });
  return { rps: result.requests.average, p99: result.latency.p99, non2xx: result.non2xx + result.errors };
}

/** The answer each server gives, checked once: the same tool result, not an error. */
async function checkAnswer(url: string, scenario: Scenario, auth: Record<string, string>): Promise<void> {
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { ...JSON_RPC_HEADERS, ...scenario.headers, ...auth },
    body: scenario.body,
  });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('"canExecute":true') || text.includes('"isError":true')) {
    throw new Error(`${url}/mcp answered ${response.status}: ${text.slice(0, 300)}`);
  }
}

interface Row {
  scenario: Scenario;
  ours: Measured;
  bare: Measured;
  ratio: number;
  rounds: { ours: Measured; bare: Measured }[];
}

async function compare(scenario: Scenario, ours: Server, bare: Server, auth: Record<string, string>): Promise<Row> {
  await checkAnswer(ours.url, scenario, auth);
  await checkAnswer(bare.url, scenario, {});
  await load(ours.url, scenario, auth, 2);
  await load(bare.url, scenario, {}, 2);
  const rounds: { ours: Measured; bare: Measured }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const bareResult = await load(bare.url, scenario, {});
    const oursResult = await load(ours.url, scenario, auth);
    rounds.push({ ours: oursResult, bare: bareResult });
  }
  const pick = (side: 'ours' | 'bare'): Measured => ({
    rps: median(rounds.map((round) => round[side].rps)),
    p99: median(rounds.map((round) => round[side].p99)),
    non2xx: rounds.reduce((sum, round) => sum + round[side].non2xx, 0),
  });
  const ratio = median(rounds.map((round) => round.ours.rps / round.bare.rps));
  return { scenario, ours: pick('ours'), bare: pick('bare'), ratio, rounds };
}

export async function mcpToolCalls(): Promise<void> {
  const ours = await startServer('skillet');
  let bare: Server | undefined;
  const rows: Row[] = [];
  try {
    bare = await startServer('mcp-baseline');
    const auth = { 'x-api-key': await basedmodeKey(ours.url) };
    for (const scenario of SCENARIOS) rows.push(await compare(scenario, ours, bare, auth));
  } finally {
    await stop(ours);
    if (bare) await stop(bare);
  }
  const placement = pinning ? 'server and load generator on separate cores' : 'unpinned';
  console.log(
    `\nMCP tools/call get_balance vs a bare SDK server: ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${DURATION_SECONDS} s, ${placement}; medians\n`,
  );
  console.table(
    rows.map((row) => ({
      measure: row.scenario.name,
      'skillet calls/s': Math.round(row.ours.rps),
      'baseline calls/s': Math.round(row.bare.rps),
      ratio: Number(row.ratio.toFixed(2)),
      target: `>= ${TARGET}`,
      'skillet p99 ms': row.ours.p99,
      'baseline p99 ms': row.bare.p99,
      'skillet non-2xx': row.ours.non2xx,
      verdict: row.ratio >= TARGET && row.ours.non2xx === 0 ? 'met' : 'MISSED',
    })),
  );
  for (const row of rows) {
    const perRound = row.rounds.map((round) => `${Math.round(round.ours.rps)}/${Math.round(round.bare.rps)}`).join(', ');
    console.log(`${row.scenario.name}, rounds (skillet/baseline): ${perRound}`);
  }
}

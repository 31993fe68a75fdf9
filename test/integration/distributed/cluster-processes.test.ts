import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { openDatabase } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { PROJECT_ROOT } from '../../../src/paths.js';
import { type AnthropicPlan, type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { applicationName, cutRepeatedly, namedPostgresUrl } from '../../faults/postgres.js';
import { agentEnv } from '../../helpers/agent.js';
import { runForArtifact } from '../../helpers/artifacts.js';
import { buildProject } from '../../helpers/build.js';
import { createSchema, engineUnderTest, postgresUrl } from '../../helpers/database.js';
import { createExecution, sendMessage, streamOf } from '../../helpers/executions.js';
import { createKey, session, signUp } from '../../helpers/factories.js';
import { client } from '../../helpers/http.js';
import { type PrivateRedis, privateRedis, REDIS_SERVER } from '../../helpers/redis-server.js';
import { removeDataFolder, TEST_SANDBOX_SETTING } from '../../helpers/sandbox.js';
import { freePort } from '../../helpers/server.js';

/**
 * The cluster as it is deployed: two API nodes (`skillet serve`) and two workers (`skillet
 * worker`), each a real process of the built code, on one PostgreSQL schema and a Redis of
 * this file's own (so that it can be killed and restarted). Runs are queued by the API
 * nodes and executed by whichever worker takes them.
 */
const CLUSTER = engineUnderTest() === 'postgres' && REDIS_SERVER;
const STALL_SECONDS = 2;

interface Node {
  name: string;
  url: string;
  /** METRICS_PORT's address: a worker's only port, with its probes and metrics. */
  opsUrl: string;
  process: ChildProcess;
}

let build: Awaited<ReturnType<typeof buildProject>>;
let anthropic: FakeAnthropic;
let schema: Awaited<ReturnType<typeof createSchema>>;
let redis: PrivateRedis;
let shared: string;
const nodes = new Map<string, Node>();
const signingSecret = 'cluster-test-signing-secret-0123456789abcdef';

/** What the nodes' PostgreSQL connections are called, so a test can cut exactly those. */
const CONNECTIONS = applicationName('cluster');

function clusterDatabaseUrl(): string {
  const url = new URL(namedPostgresUrl(CONNECTIONS));
  url.searchParams.set('options', `-c search_path=${schema.name}`);
  return url.toString();
}

function nodeEnv(name: string, role: 'api' | 'worker', port: number, opsPort: number): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...agentEnv({ anthropic: anthropic.url, openai: anthropic.url }),
    // The default, which a test below counts up to (agentEnv lifts it for its own tests).
    RATE_LIMIT_REST_PER_MINUTE: '100',
    NODE_ID: name,
    NODE_ROLE: role,
    PORT: String(port),
    METRICS_PORT: String(opsPort),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: path.join(shared, name),
    BLOB_DIR: path.join(shared, 'blobs'),
    PUBLIC_DIR: path.join(shared, 'public'),
    DATABASE_URL: clusterDatabaseUrl(),
    REDIS_URL: redis.url,
    SIGNING_SECRET: signingSecret,
    RUN_STALL_SECONDS: String(STALL_SECONDS),
    NODE_TIMEOUT_SECONDS: '6',
    LOG_LEVEL: 'warn',
    PASSWORD_HASH_LOG_N: '10',
    RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
    SKILLS_DIR: path.join(PROJECT_ROOT, 'test', 'skills'),
    SKILL_SANDBOX: TEST_SANDBOX_SETTING,
  };
}

async function startNode(name: string, role: 'api' | 'worker'): Promise<Node> {
  const [port, opsPort] = [await freePort(), await freePort()];
  const command = role === 'api' ? 'serve' : 'worker';
  const child = spawn(process.execPath, [path.join(build.dir, 'src/cli/main.js'), command], {
    env: nodeEnv(name, role, port, opsPort),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const node = { name, url: `http://127.0.0.1:${port}`, opsUrl: `http://127.0.0.1:${opsPort}`, process: child };
  nodes.set(name, node);
  if (role === 'api') {
    await vi.waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
        expect((await fetch(`${node.url}/openapi.json`)).ok).toBe(true);
      },
      { timeout: 30_000, interval: 100 },
    );
  } else {
    await waitForHeartbeat(name);
  }
  return node;
}

/** A worker is up once it has said so in the cluster's table of nodes. */
async function waitForHeartbeat(name: string): Promise<void> {
  const db = new pg.Client({ connectionString: postgresUrl() });
  await db.connect();
  try {
    await vi.waitFor(
      async () => {
        const found = await db.query(`select 1 from ${schema.name}.cluster_nodes where node_id = $1`, [name]);
        expect(found.rowCount).toBe(1);
      },
      { timeout: 30_000, interval: 100 },
    );
  } finally {
    await db.end();
  }
}

async function ownerOf(executionId: string): Promise<string | null> {
  const db = new pg.Client({ connectionString: postgresUrl() });
  await db.connect();
  try {
    const found = await db.query<{ owner_node: string | null }>(
      `select owner_node from ${schema.name}.executions where execution_id = $1`,
      [executionId],
    );
    return found.rows[0]?.owner_node ?? null;
  } finally {
    await db.end();
  }
}

async function killNode(name: string): Promise<void> {
  const node = nodes.get(name);
  // A process killed by a signal has a signalCode and no exitCode.
  if (!node || node.process.exitCode !== null || node.process.signalCode !== null) return;
  const exited = once(node.process, 'exit');
  node.process.kill('SIGKILL');
  await exited;
}

/** Runs a query on the cluster's schema. */
async function query<Row extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<Row[]> {
  const db = new pg.Client({ connectionString: postgresUrl() });
  await db.connect();
  try {
    await db.query(`set search_path to ${schema.name}`);
    return (await db.query<Row>(text, values)).rows;
  } finally {
    await db.end();
  }
}

/**
 * Waits for `promise`, or fails after `seconds` saying where the run stood: a run that
 * hangs fails its own round with its state, instead of the whole test timing out blind
 * (and the tests after it waiting on a cluster the hung one left behind).
 */
async function within<T>(
  seconds: number,
  what: string,
  executionId: string,
  stream: Awaited<ReturnType<typeof streamOf>>,
  promise: Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), seconds * 1000);
  });
  try {
    const settled = await Promise.race([promise, deadline]);
    if (settled !== 'late') return settled as T;
  } finally {
    clearTimeout(timer);
  }
  const [row] = await query<{ status: string; owner_node: string | null }>(
    'select status, owner_node from executions where execution_id = $1',
    [executionId],
  );
  const living = [...nodes.values()].filter((node) => node.process.exitCode === null && node.process.signalCode === null);
  const lastEvents = stream.events.slice(-3).map((event) => `${event.sequence} ${event.type}`);
  throw new Error(
    `${what}: still waiting after ${seconds} s. Execution ${JSON.stringify(row)}; ${stream.events.length} events, ` +
      `the last ${JSON.stringify(lastEvents)}; stream ${stream.droppedBy ? `dropped (${stream.droppedBy.message})` : 'open or ended'}; ` +
      `nodes alive: ${living.map((node) => node.name).join(', ')}`,
  );
}

/** Model calls of the agent run the resume tests make: nine that use the computer, then a last answer. */
const STEPS = 10;

/**
 * The model of the resume tests, answering from how far the conversation has got, whichever
 * worker asks. Each answer signs its thinking; a conversation that does not come back with
 * every earlier answer exactly as it was sent (signatures included) is refused, as Anthropic's
 * API refuses it. Each step appends a line to a file of /workspace and copies it to the output,
 * so a step done twice, or a /workspace not put back, shows in the artifact.
 */
async function stepsPlan(body: Record<string, unknown>): Promise<AnthropicPlan> {
  const messages = (body.messages ?? []) as { role: string; content: { type: string; signature?: string }[] | string }[];
  const answers = messages.filter((message) => message.role === 'assistant');
  const intact = answers.every(
    (message, i) => Array.isArray(message.content) && message.content[0]?.signature === `signature-of-step-${i + 1}`,
  );
  if (!intact) return { kind: 'status', status: 400, message: 'messages: the thinking blocks were modified' };
  const step = answers.length + 1;
  // A model takes its time, so that a worker can die during a call as well as between them.
  await new Promise((resolve) => setTimeout(resolve, 60));
  const usage = { input: 100, output: 10 * step };
  const thinking = { type: 'thinking' as const, thinking: `Step ${step}.`, signature: `signature-of-step-${step}` };
  if (step === STEPS) return { kind: 'reply', blocks: [thinking, { type: 'text', text: 'All the steps are done.' }], usage };
  const command =
    `echo step-${step} >> /workspace/log.txt && cp /workspace/log.txt /mnt/session/outputs/log.txt && ` +
    `echo "step ${step}" > /mnt/session/outputs/step-${step}.txt`;
  return {
    kind: 'reply',
    blocks: [
      thinking,
      { type: 'text', text: `Writing step ${step}.` },
      { type: 'tool_use', id: `toolu_step_${step}`, name: 'bash', input: { command } },
    ],
    usage,
  };
}

/** What every run of the steps costs: each call's tokens at 1 D a token (agentEnv's prices). */
const STEPS_COST = Array.from({ length: STEPS }, (_, i) => 100 + 10 * (i + 1)).reduce((sum, cost) => sum + cost, 0);

/** An execution's artifact files (path and content hash), its model charges and its payer's ledger against their balance. */
async function outcomeOf(executionId: string) {
  const files = await query<{ path: string; sha256: string }>(
    `select f.path, f.sha256 from artifact_files f join artifacts a on a.id = f.artifact_id
     where a.execution_id = $1 and a.status = 'completed' order by f.path`,
    [executionId],
  );
  const charges = await query<{ model_call: number; amount: number }>(
    'select model_call, amount from transactions where execution_id = $1 order by model_call',
    [executionId],
  );
  const [ledger] = await query<{ balance: number; ledger: string }>(
    `select u.balance, (select sum(t.amount) from transactions t where t.user_id = u.id) as ledger
     from users u join executions e on e.user_id = u.id where e.execution_id = $1`,
    [executionId],
  );
  return { files, charges, balance: ledger?.balance, ledger: Number(ledger?.ledger) };
}

describe.runIf(CLUSTER)('a cluster of two API nodes and two workers, as processes', () => {
  beforeAll(async () => {
    build = await buildProject();
    anthropic = await startFakeAnthropic();
    anthropic.planBy(stepsPlan);
    shared = await mkdtemp(path.join(tmpdir(), 'skillet-cluster-'));
    schema = await createSchema('cluster_processes');
    const migrator = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: schema.name, poolSize: 1 });
    await migrateToLatest(migrator);
    await migrator.close();
    redis = await privateRedis();
    await Promise.all([startNode('api-a', 'api'), startNode('api-b', 'api')]);
    await Promise.all([startNode('worker-1', 'worker'), startNode('worker-2', 'worker')]);
  }, 120_000);

  afterAll(async () => {
    for (const name of nodes.keys()) await killNode(name);
    await redis?.stop();
    await anthropic?.close();
    await schema?.drop();
    await build?.remove();
    // Unmounted first: a killed worker leaves the output folders of the sandboxes it kept warm mounted.
    if (shared) await removeDataFolder(shared);
  });

  const api = (name: 'api-a' | 'api-b') => client((nodes.get(name) as Node).url);

  test('a worker builds no HTTP app: its only port is METRICS_PORT, with the probes and the metrics', async () => {
    const worker = nodes.get('worker-1') as Node;
    await expect(fetch(`${worker.url}/healthz`)).rejects.toThrow();
    const health = await fetch(`${worker.opsUrl}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${worker.opsUrl}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', checks: { database: 'ok', redis: 'ok' } });
    const metrics = await fetch(`${worker.opsUrl}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain('skillet_runs_finished_total');
    // An API node keeps its probes on its API port.
    expect((await fetch(`${(nodes.get('api-a') as Node).url}/healthz`)).status).toBe(200);
  });

  test('a client on node A streams a run a worker executes while node B cancels it', async () => {
    const [a, b] = [api('api-a'), api('api-b')];
    const person = await signUp(a);
    const created = await createExecution(a, person, 'ticker', '200 50');
    const stream = await streamOf(a, person, created.id);
    expect((await sendMessage(a, person, created.id, '200 50')).status).toBe(200);
    await stream.waitFor(5);
    expect(['worker-1', 'worker-2']).toContain(await ownerOf(created.id));
    const cancelled = await b.post<{ success: boolean; processKilled: boolean; actualStatus: string }>(
      `/api/v1/executions/${created.id}/cancel`,
      { headers: session(person) },
    );
    expect(cancelled.body).toMatchObject({ success: true, processKilled: true, actualStatus: 'idle' });
    await stream.ended;
    const sequences = stream.events.map((event) => event.sequence);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, i) => i + 1));
    expect(stream.events.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'interrupt' } } });
    expect(stream.events.filter((event) => event.type === 'agent.message').length).toBeLessThan(200);
  }, 60_000);

  test('of 10 simultaneous starts in one workspace spread over both API nodes exactly one runs', async () => {
    for (let round = 0; round < 3; round++) {
      const [a, b] = [api('api-a'), api('api-b')];
      const person = await signUp(a);
      // A run that outlasts every start: a short one could end (on a loaded machine) before
      // the last start arrived, and a start after it is rightly let through.
      const input = '600 50';
      const executions = await Promise.all(Array.from({ length: 10 }, () => createExecution(a, person, 'ticker', input)));
      const replies = await Promise.all(
        executions.map((execution, i) => sendMessage(i % 2 ? a : b, person, execution.id, input)),
      );
      expect(replies.filter((reply) => reply.status === 200).map((reply) => reply.status)).toEqual([200]);
      for (const reply of replies.filter((each) => each.status !== 200)) {
        expect(reply.body).toEqual({ error: 'EXECUTION_RUNNING', message: expect.any(String) });
      }
      const winner = executions[replies.findIndex((reply) => reply.status === 200)] as { id: string };
      const stream = await streamOf(b, person, winner.id);
      expect((await a.post(`/api/v1/executions/${winner.id}/cancel`, { headers: session(person) })).status).toBe(200);
      await stream.ended;
    }
  }, 60_000);

  test("refuses a key's 101st request in a minute whichever node it reaches", async () => {
    const [a, b] = [api('api-a'), api('api-b')];
    const person = await signUp(a);
    const { key } = await createKey(a, person);
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++)
      statuses.push((await (i % 2 ? a : b).get('/api/v1/me', { headers: { 'x-api-key': key } })).status);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    for (const node of [a, b]) expect((await node.get('/api/v1/me', { headers: { 'x-api-key': key } })).status).toBe(429);
  }, 60_000);

  test('stops a revoked key on both API nodes at once', async () => {
    const [a, b] = [api('api-a'), api('api-b')];
    const person = await signUp(a);
    const made = await createKey(a, person);
    for (const node of [a, b]) expect((await node.get('/api/v1/me', { headers: { 'x-api-key': made.key } })).status).toBe(200);
    expect((await a.delete(`/api/v1/keys/${made.id}`, { headers: session(person) })).status).toBe(200);
    await vi.waitFor(async () => {
      expect((await b.get('/api/v1/me', { headers: { 'x-api-key': made.key } })).status).toBe(401);
    });
    expect((await a.get('/api/v1/me', { headers: { 'x-api-key': made.key } })).status).toBe(401);
  }, 60_000);

  test('a skill installed through one API node runs on a worker that never saw it, from the shared blobs', async () => {
    const [a, b] = [api('api-a'), api('api-b')];
    const person = await signUp(a);
    const { artifactId } = await runForArtifact(a, person, 'skill-creator', 'Loud echo\nRepeats the input back.');
    const installed = await b.post(`/api/v1/artifacts/${artifactId}/install`, { headers: session(person) });
    expect(installed.status).toBe(200);
    // These nodes share a machine; a worker elsewhere could not read node B's data folder, and now neither can these.
    await rm(path.join(shared, 'api-b', 'installed-skills'), { recursive: true, force: true });
    const run = await runForArtifact(a, person, 'loud-echo', 'hello there');
    const echoed = await b.get<{ skillSlug: string; content: string }>(`/api/v1/artifacts/${run.artifactId}`, {
      headers: session(person),
    });
    expect(echoed.body).toMatchObject({ skillSlug: 'loud-echo', content: 'hello there' });
  }, 60_000);

  test('a worker killed with SIGKILL mid-run leaves a failed run with a closed stream within the stall timeout', async () => {
    const a = api('api-a');
    const person = await signUp(a);
    const created = await createExecution(a, person, 'ticker', '400 50');
    const stream = await streamOf(a, person, created.id);
    expect((await sendMessage(a, person, created.id, '400 50')).status).toBe(200);
    await stream.waitFor(5);
    const owner = (await ownerOf(created.id)) as string;
    expect(['worker-1', 'worker-2']).toContain(owner);
    const killedAt = Date.now();
    await killNode(owner);
    await stream.ended;
    // The other worker's stalled-job check ends it: lock lapse plus two checks, with room for a loaded machine.
    expect(Date.now() - killedAt).toBeLessThan(STALL_SECONDS * 1000 * 4 + 5_000);
    const last = stream.events.slice(-2);
    expect(last.map((event) => event.type)).toEqual(['agent.info', 'session.status_idle']);
    expect(last[1]?.payload).toEqual({ stop_reason: { type: 'error' } });
    const status = await a.get<{ status: string }>(`/api/v1/executions/${created.id}/status`, { headers: session(person) });
    expect(status.body.status).toBe('failed');
    await startNode(owner, 'worker');
  }, 60_000);

  test('Redis restarted mid-run: the run finishes and no event is lost', async () => {
    const a = api('api-a');
    const person = await signUp(a);
    const created = await createExecution(a, person, 'ticker', '40 50');
    const stream = await streamOf(a, person, created.id);
    expect((await sendMessage(a, person, created.id, '40 50')).status).toBe(200);
    await stream.waitFor(5);
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await redis.start();
    await stream.ended;
    const sequences = stream.events.map((event) => event.sequence);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, i) => i + 1));
    expect(stream.events.filter((event) => event.type === 'agent.message')).toHaveLength(40);
    expect(stream.events.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'end_turn' } } });
    const status = await a.get<{ status: string }>(`/api/v1/executions/${created.id}/status`, { headers: session(person) });
    expect(status.body.status).toBe('completed');
  }, 60_000);

  /** Starts the steps run and returns its id and stream. */
  async function startSteps(a: ReturnType<typeof api>, person: Awaited<ReturnType<typeof signUp>>) {
    const created = await createExecution(a, person, 'agent-plain', 'Do the ten steps.');
    const stream = await streamOf(a, person, created.id);
    expect((await sendMessage(a, person, created.id, 'Do the ten steps.')).status).toBe(200);
    return { id: created.id, stream };
  }

  /** A run that ended well: gap-free, completed, each model call charged once, the ledger equal to the balance. */
  async function expectWholeRun(id: string, stream: Awaited<ReturnType<typeof streamOf>>) {
    const sequences = stream.events.map((event) => event.sequence);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, i) => i + 1));
    // The run's last words say why, when it did not complete.
    expect(stream.events.at(-1), JSON.stringify(stream.events.slice(-3))).toMatchObject({
      type: 'session.status_idle',
      payload: { stop_reason: { type: 'end_turn' } },
    });
    const outcome = await outcomeOf(id);
    expect(outcome.charges.map((charge) => charge.model_call)).toEqual(Array.from({ length: STEPS }, (_, i) => i + 1));
    expect(outcome.charges.reduce((sum, charge) => sum + charge.amount, 0)).toBe(-STEPS_COST);
    expect(outcome.balance).toBe(outcome.ledger);
    return outcome;
  }

  /** An uninterrupted run of the steps, once per file: what every interrupted one must come to. */
  let reference: Promise<{ files: { path: string; sha256: string }[]; events: number }> | undefined;
  function stepsReference() {
    reference ??= (async () => {
      const a = api('api-a');
      const run = await startSteps(a, await signUp(a));
      await within(60, 'the uninterrupted run', run.id, run.stream, run.stream.ended);
      const { files } = await expectWholeRun(run.id, run.stream);
      const paths = ['log.txt', ...Array.from({ length: STEPS - 1 }, (_, i) => `step-${i + 1}.txt`)];
      expect(files.map((file) => file.path)).toEqual(paths.sort());
      return { files, events: run.stream.events.length };
    })();
    return reference;
  }

  test('an agent run whose worker is killed at 20 points goes on elsewhere: same artifact, each call charged once, no gap', async () => {
    const a = api('api-a');
    const { files: expected, events: length } = await stepsReference();
    // The kills land anywhere from the run's start to just before its end.
    for (let round = 0; round < 20; round++) {
      const run = await startSteps(a, await signUp(a));
      const killAt = 3 + Math.floor(Math.random() * (length - 5));
      await within(60, `round ${round}: event ${killAt}`, run.id, run.stream, run.stream.waitFor(killAt));
      const owner = (await ownerOf(run.id)) as string;
      await killNode(owner);
      await within(
        60,
        `round ${round}: the end after ${owner} was killed at event ${killAt}`,
        run.id,
        run.stream,
        run.stream.ended,
      );
      const resumed = run.stream.events.filter((event) => event.type === 'agent.info');
      expect(
        resumed.map((event) => (event.payload as { message: string }).message).join('\n'),
        `killed after event ${killAt}`,
      ).toMatch(/^Resumed on another worker( after \d+ s)?: the worker running this run was lost/);
      expect((await expectWholeRun(run.id, run.stream)).files, `killed after event ${killAt}`).toEqual(expected);
      await startNode(owner, 'worker');
    }
  }, 600_000);

  test('an agent run goes on through Redis restarted empty, each call charged once', async () => {
    const a = api('api-a');
    const run = await startSteps(a, await signUp(a));
    await within(60, 'event 8', run.id, run.stream, run.stream.waitFor(8));
    await redis.kill();
    await new Promise((resolve) => setTimeout(resolve, 500));
    await redis.start();
    await within(60, 'the end after Redis restarted', run.id, run.stream, run.stream.ended);
    expect((await expectWholeRun(run.id, run.stream)).files).toEqual((await stepsReference()).files);
  }, 120_000);

  test('a script skill that says it is safe to restart starts again from its beginning on another worker', async () => {
    const a = api('api-a');
    const person = await signUp(a);
    const created = await createExecution(a, person, 'restartable-counter', '30 50');
    const stream = await streamOf(a, person, created.id);
    expect((await sendMessage(a, person, created.id, '30 50')).status).toBe(200);
    await within(30, 'event 6', created.id, stream, stream.waitFor(6));
    const owner = (await ownerOf(created.id)) as string;
    await killNode(owner);
    await within(30, `the end after ${owner} was killed`, created.id, stream, stream.ended);
    const sequences = stream.events.map((event) => event.sequence);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, i) => i + 1));
    const info = stream.events.find((event) => event.type === 'agent.info');
    expect((info?.payload as { message?: string } | undefined)?.message).toMatch(
      /^This run started again from the beginning on another worker/,
    );
    expect(stream.events.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'end_turn' } } });
    expect((await outcomeOf(created.id)).files.map((file) => file.path)).toEqual(['count.txt']);
    await startNode(owner, 'worker');
  }, 60_000);

  test('an agent run goes on while its PostgreSQL connections are cut again and again, each call charged once', async () => {
    const a = api('api-a');
    const run = await startSteps(a, await signUp(a));
    await within(60, 'event 8', run.id, run.stream, run.stream.waitFor(8));
    const cutting = cutRepeatedly(CONNECTIONS, 200, 8);
    await within(60, 'the end while connections were cut', run.id, run.stream, run.stream.ended);
    expect(await cutting.stop()).toBeGreaterThan(0);
    expect((await expectWholeRun(run.id, run.stream)).files).toEqual((await stepsReference()).files);
  }, 120_000);
});

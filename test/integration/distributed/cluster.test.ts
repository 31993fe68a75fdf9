import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import WebSocket from 'ws';
import { buildApp } from '../../../src/app.js';
import { ManualClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config-load.js';
import { type Database, openDatabase } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { createSchema, engineUnderTest, postgresUrl } from '../../helpers/database.js';
import { createExecution, sendMessage, streamOf } from '../../helpers/executions.js';
import { createKey, session, signUp } from '../../helpers/factories.js';
import { client } from '../../helpers/http.js';
import { redisReachable, TEST_REDIS_URL } from '../../helpers/redis.js';
import { freePort, TEST_ENV } from '../../helpers/server.js';

/**
 * Two API nodes on one PostgreSQL database and one Redis, in one process with one clock:
 * what one node announces, counts or revokes holds on the other (DESIGN §12).
 */
const REDIS_URL = TEST_REDIS_URL;

const CLUSTER = engineUnderTest() === 'postgres' && (await redisReachable('the cluster tests'));

interface Node {
  nodeId: string;
  app: FastifyInstance;
  url: string;
  database: Database;
  dir: string;
}

const clock = new ManualClock();
const prefix = `skillet-cluster:${randomUUID()}:`;
let schema: Awaited<ReturnType<typeof createSchema>>;
let nodes: [Node, Node];

async function startNode(options: { role?: 'all' | 'api' | 'worker'; redisPrefix?: string } = {}): Promise<Node> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-node-'));
  const port = await freePort();
  const config = await loadConfig({
    ...TEST_ENV,
    DATA_DIR: dir,
    PORT: String(port),
    REDIS_URL,
    LOG_LEVEL: 'warn',
    // Keys are cached for good on this clock, which never moves: only an invalidation can end an entry.
    CREDENTIAL_CACHE_SECONDS: '300',
    NODE_ROLE: options.role ?? 'all',
  });
  const database = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: schema.name, poolSize: 5 });
  const app = await buildApp({ config, database, clock, redisPrefix: options.redisPrefix ?? prefix });
  if (options.role === 'worker') await app.ready();
  else await app.listen({ host: '127.0.0.1', port });
  return { nodeId: config.nodeId, app, url: `http://127.0.0.1:${port}`, database, dir };
}

describe.runIf(CLUSTER)('two API nodes on PostgreSQL and Redis', () => {
  beforeAll(async () => {
    schema = await createSchema('cluster');
    const migrator = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: schema.name, poolSize: 1 });
    await migrateToLatest(migrator);
    await migrator.close();
    nodes = [await startNode(), await startNode()];
  });

  afterAll(async () => {
    for (const node of nodes ?? []) {
      await node.app.close();
      await node.database.close();
      await rm(node.dir, { recursive: true, force: true });
    }
    await schema?.drop();
  });

  test('streams on node A, without gap or repeat, a run started through node B', async () => {
    const [a, b] = [client(nodes[0].url), client(nodes[1].url)];
    const person = await signUp(a);
    const created = await createExecution(b, person, 'ticker', '6 20');
    const stream = await streamOf(a, person, created.id);
    expect((await sendMessage(b, person, created.id, '6 20')).status).toBe(200);
    await stream.ended;
    const sequences = stream.events.map((event) => event.sequence);
    expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, i) => i + 1));
    expect(stream.events.filter((event) => event.type === 'agent.message')).toHaveLength(6);
    expect(stream.events.at(-1)?.type).toBe('session.status_idle');
  });

  test('cancels from node B a run started on node A, while a client on node A streams it', async () => {
    const [a, b] = [client(nodes[0].url), client(nodes[1].url)];
    const person = await signUp(a);
    const created = await createExecution(a, person, 'ticker', '100 100');
    const stream = await streamOf(a, person, created.id);
    expect((await sendMessage(a, person, created.id, '100 100')).status).toBe(200);
    await stream.waitFor(4);
    const cancelled = await b.post<{ success: boolean; processKilled: boolean; actualStatus: string }>(
      `/api/v1/executions/${created.id}/cancel`,
      { headers: session(person) },
    );
    expect(cancelled.body).toMatchObject({ success: true, processKilled: true, actualStatus: 'idle' });
    await stream.ended;
    const last = stream.events.at(-1);
    expect(last).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'interrupt' } } });
    expect(stream.events.filter((event) => event.type === 'agent.message').length).toBeLessThan(100);
    // Nothing more is written once stopped: the run really ended where it ran.
    const stored = await nodes[0].database.db
      .selectFrom('executions')
      .select('last_sequence')
      .where('execution_id', '=', created.id)
      .executeTakeFirstOrThrow();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const later = await nodes[0].database.db
      .selectFrom('executions')
      .select('last_sequence')
      .where('execution_id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(later.last_sequence).toBe(stored.last_sequence);
  });

  test('interrupts from node B a run started on node A, then resumes it through node B', async () => {
    const [a, b] = [client(nodes[0].url), client(nodes[1].url)];
    const person = await signUp(a);
    const created = await createExecution(a, person, 'ticker', '100 100');
    expect((await sendMessage(a, person, created.id, '100 100')).status).toBe(200);
    const interrupted = await b.post(`/api/v1/executions/${created.id}/events`, {
      body: { events: [{ type: 'user.interrupt' }] },
      headers: session(person),
    });
    expect(interrupted.status).toBe(200);
    const status = await b.get<{ status: string }>(`/api/v1/executions/${created.id}/status`, { headers: session(person) });
    expect(status.body.status).toBe('idle');
    const stream = await streamOf(a, person, created.id);
    expect((await sendMessage(b, person, created.id, '2 1')).status).toBe(200);
    await stream.ended;
    expect(stream.events.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'end_turn' } } });
  });

  test("tells node A's control-plane socket about a run on node B", async () => {
    const [a, b] = [client(nodes[0].url), client(nodes[1].url)];
    const person = await signUp(b);
    const reply = await a.get<{ url: string }>('/api/v1/events/subscribe-url', { headers: session(person) });
    const socket = new WebSocket(reply.body.url);
    const heard: { type: string; executionId?: string }[] = [];
    socket.on('message', (data) => heard.push(JSON.parse(String(data))));
    await once(socket, 'open');
    const created = await createExecution(b, person, 'ticker', '1 1');
    const stream = await streamOf(b, person, created.id);
    await sendMessage(b, person, created.id, '1 1');
    await stream.ended;
    await vi.waitFor(() =>
      expect(heard).toContainEqual(expect.objectContaining({ type: 'execution-completed', executionId: created.id })),
    );
    socket.close();
  });

  test("refuses a key's 101st request in a minute whichever node it reaches", async () => {
    const [a, b] = [client(nodes[0].url), client(nodes[1].url)];
    const person = await signUp(a);
    const { key } = await createKey(a, person);
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++)
      statuses.push((await (i % 2 ? a : b).get('/api/v1/me', { headers: { 'x-api-key': key } })).status);
    expect(statuses.every((status) => status === 200)).toBe(true);
    for (const node of [a, b]) {
      const refused = await node.get('/api/v1/me', { headers: { 'x-api-key': key } });
      expect(refused.status).toBe(429);
    }
  });

  test("leaves another node's running run alone when a node starts, and records who runs it", async () => {
    const [a] = [client(nodes[0].url)];
    const person = await signUp(a);
    const created = await createExecution(a, person, 'ticker', '50 100');
    expect((await sendMessage(a, person, created.id, '50 100')).status).toBe(200);
    const third = await startNode();
    try {
      const status = await client(third.url).get<{ status: string }>(`/api/v1/executions/${created.id}/status`, {
        headers: session(person),
      });
      expect(status.body.status).toBe('working');
      // Whichever worker took it from the queue; the node that started last did not take it over.
      const owner = await vi.waitFor(async () => {
        const row = await third.database.db
          .selectFrom('executions')
          .select('owner_node')
          .where('execution_id', '=', created.id)
          .executeTakeFirstOrThrow();
        if (row.owner_node === null) throw new Error('still queued');
        return row.owner_node;
      });
      expect([nodes[0].nodeId, nodes[1].nodeId]).toContain(owner);
    } finally {
      await a.post(`/api/v1/executions/${created.id}/cancel`, { headers: session(person) });
      await third.app.close();
      await third.database.close();
      await rm(third.dir, { recursive: true, force: true });
    }
  });

  test('stops a revoked key on both nodes at once, though each had it cached', async () => {
    const [a, b] = [client(nodes[0].url), client(nodes[1].url)];
    const person = await signUp(a);
    const made = await createKey(a, person);
    for (const node of [a, b]) expect((await node.get('/api/v1/me', { headers: { 'x-api-key': made.key } })).status).toBe(200);
    expect((await a.delete(`/api/v1/keys/${made.id}`, { headers: session(person) })).status).toBe(200);
    await vi.waitFor(async () => {
      expect((await b.get('/api/v1/me', { headers: { 'x-api-key': made.key } })).status).toBe(401);
    });
    expect((await a.get('/api/v1/me', { headers: { 'x-api-key': made.key } })).status).toBe(401);
  });
});

describe.runIf(CLUSTER)('a run that waits in the queue', () => {
  // A cluster of its own (its own Redis prefix) with, at first, no worker at all.
  const alone = `skillet-queue:${randomUUID()}:`;
  let api: Node;
  let queueSchema: Awaited<ReturnType<typeof createSchema>>;
  const started: Node[] = [];

  beforeAll(async () => {
    queueSchema = await createSchema('queue');
    schema = queueSchema;
    const migrator = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: queueSchema.name, poolSize: 1 });
    await migrateToLatest(migrator);
    await migrator.close();
    api = await startNode({ role: 'api', redisPrefix: alone });
    started.push(api);
  });

  afterAll(async () => {
    for (const node of started) {
      await node.app.close();
      await node.database.close();
      await rm(node.dir, { recursive: true, force: true });
    }
    await queueSchema?.drop();
  });

  test('is stopped in the store when cancelled, and a worker that comes later leaves it alone', async () => {
    const a = client(api.url);
    const person = await signUp(a);
    const created = await createExecution(a, person, 'ticker', '3 10');
    const stream = await streamOf(a, person, created.id);
    expect((await sendMessage(a, person, created.id, '3 10')).status).toBe(200);
    const queued = await api.database.db
      .selectFrom('executions')
      .select(['status', 'owner_node'])
      .where('execution_id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(queued).toEqual({ status: 'working', owner_node: null });

    const cancelled = await a.post<{ success: boolean; processKilled: boolean; actualStatus: string }>(
      `/api/v1/executions/${created.id}/cancel`,
      { headers: session(person) },
    );
    expect(cancelled.body).toMatchObject({ success: true, processKilled: false, actualStatus: 'idle' });
    await stream.ended;
    expect(stream.events.map((event) => event.type)).toEqual(['user.message', 'session.status_running', 'session.status_idle']);

    const worker = await startNode({ role: 'worker', redisPrefix: alone });
    started.push(worker);
    // The worker takes the job, finds the run no longer waiting, and drops it: the queue empties, nothing is written.
    const connection = new Redis(REDIS_URL);
    const queue = new Queue('runs', { connection, prefix: `${alone}bull` });
    try {
      await vi.waitFor(async () =>
        expect(await queue.getJobCounts('waiting', 'active', 'completed')).toEqual({ waiting: 0, active: 0, completed: 0 }),
      );
    } finally {
      await queue.close();
      connection.disconnect();
    }
    const after = await api.database.db
      .selectFrom('executions')
      .select(['status', 'last_sequence', 'owner_node'])
      .where('execution_id', '=', created.id)
      .executeTakeFirstOrThrow();
    // The API node that stopped it took it out of the queue's hands first.
    expect(after).toEqual({ status: 'idle', last_sequence: 3, owner_node: api.nodeId });
  });
});

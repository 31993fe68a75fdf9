import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { ManualClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config-load.js';
import { type Database, openDatabase } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { type FakeOpenAI, startFakeOpenAI } from '../../fakes/openai.js';
import { agentEnv } from '../../helpers/agent.js';
import { createSchema, engineUnderTest, postgresUrl } from '../../helpers/database.js';
import { signUp } from '../../helpers/factories.js';
import { client } from '../../helpers/http.js';
import { redisReachable, TEST_REDIS_URL } from '../../helpers/redis.js';
import { freePort, TEST_ENV } from '../../helpers/server.js';
import { reply } from '../../helpers/thread-plans.js';
import { answerApproval, recordsOf, sendToThread, subscribe } from '../../helpers/thread-streams.js';

/**
 * A thread shared by two API nodes on one PostgreSQL database and one Redis (DESIGN §12,
 * §13): what one node writes into it reaches a subscriber of the other, and an approval
 * answered on one wakes the turn waiting on the other.
 */
const CLUSTER = engineUnderTest() === 'postgres' && (await redisReachable('the thread cluster tests'));

interface Node {
  app: FastifyInstance;
  url: string;
  database: Database;
  dir: string;
}

const clock = new ManualClock();
const prefix = `skillet-threads:${randomUUID()}:`;
let schema: Awaited<ReturnType<typeof createSchema>>;
let nodes: [Node, Node];
let anthropic: FakeAnthropic;
let openai: FakeOpenAI;

async function startNode(): Promise<Node> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-node-'));
  const port = await freePort();
  const config = await loadConfig({
    ...TEST_ENV,
    ...agentEnv({ anthropic: anthropic.url, openai: openai.url }),
    DATA_DIR: dir,
    PORT: String(port),
    REDIS_URL: TEST_REDIS_URL,
    LOG_LEVEL: 'warn',
    CREDENTIAL_CACHE_SECONDS: '300',
  });
  const database = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: schema.name, poolSize: 5 });
  const app = await buildApp({ config, database, clock, redisPrefix: prefix });
  await app.listen({ host: '127.0.0.1', port });
  return { app, url: `http://127.0.0.1:${port}`, database, dir };
}

describe.runIf(CLUSTER)('a thread across two nodes on PostgreSQL and Redis', () => {
  beforeAll(async () => {
    [anthropic, openai] = [await startFakeAnthropic(), await startFakeOpenAI()];
    schema = await createSchema('threads');
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
    await anthropic?.close();
    await openai?.close();
  });

  test('delivers to a subscriber on node B what node A writes, and resumes there after Last-Event-ID', async () => {
    const a = client(nodes[0].url);
    const person = await signUp(a);
    const threadId = `t-${randomUUID()}`;
    const onB = await subscribe(nodes[1].url, person, 'assistant', threadId);
    anthropic.plan(reply('Answered on A.'));
    const sent = await sendToThread(a, person, 'assistant', threadId, 'written on A');
    await onB.waitFor((frame) => frame.type === 'agent.turn_end');
    const records = recordsOf(onB);
    expect(records[0]).toMatchObject({ type: 'user.message', messageId: sent.messageId, text: 'written on A' });
    expect(records.find((frame) => frame.type === 'agent.message')).toMatchObject({ text: 'Answered on A.' });
    expect(records.map((frame) => frame.sequence)).toEqual(records.map((_, i) => i + 1));
    const lastId = onB.ids.at(-1) as string;
    onB.close();

    anthropic.plan(reply('Second, on A.'));
    await sendToThread(a, person, 'assistant', threadId, 'again on A');
    const resumed = await subscribe(nodes[1].url, person, 'assistant', threadId, { headers: { 'last-event-id': lastId } });
    await resumed.waitFor((frame) => frame.type === 'agent.turn_end');
    expect(resumed.ids[0]).toBe(String(Number(lastId) + 1));
    expect(recordsOf(resumed)[0]).toMatchObject({ type: 'user.message', text: 'again on A' });
    resumed.close();
  });

  test('wakes the turn on node A with an approval answered on node B', async () => {
    const [a, b] = [client(nodes[0].url), client(nodes[1].url)];
    const person = await signUp(a);
    const threadId = `t-${randomUUID()}`;
    const onA = await subscribe(nodes[0].url, person, 'assistant', threadId);
    anthropic.plan(
      { kind: 'reply', blocks: [{ type: 'tool_use', id: 'c1', name: 'start_run', input: { skill: 'ticker', input: '1 10' } }] },
      reply('Started.'),
      reply('Done.'),
    );
    await sendToThread(a, person, 'assistant', threadId, 'run the ticker');
    const request = await onA.waitFor((frame) => frame.type === 'tool.approval_request');
    const answer = await answerApproval(b, person, threadId, request.approvalId, true);
    expect(answer.status).toBe(200);
    expect(await onA.waitFor((frame) => frame.type === 'tool.result')).toMatchObject({ status: 'ok' });
    const notification = await onA.waitFor((frame) => frame.type === 'notification');
    expect(notification.text).toMatch(/of ticker completed/);
    onA.close();
  });
});

import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { systemClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config-load.js';
import { type Database, openDatabase } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { type FakeAnthropic, startFakeAnthropic } from '../../fakes/anthropic.js';
import { agentEnv, done, startRun, stopReasonOf, use } from '../../helpers/agent.js';
import { createSchema, engineUnderTest, postgresUrl } from '../../helpers/database.js';
import { signUp } from '../../helpers/factories.js';
import { type Client, client } from '../../helpers/http.js';
import { redisReachable, TEST_REDIS_URL } from '../../helpers/redis.js';
import { BOUNDED_SPACE_HERE, BUBBLEWRAP_HERE, KERNEL_LIMITS_HERE } from '../../helpers/sandbox.js';
import { freePort, TEST_ENV } from '../../helpers/server.js';

/**
 * A run's checkpoints on a cluster (issue 50, item 4): an API node and two workers in one
 * process, on PostgreSQL, Redis and one shared blob folder. Superseded versions of a file go
 * as soon as the checkpoint that replaced them commits, the rest when the run ends, and a
 * run stops checkpointing once its checkpoints would store more than their byte budget.
 */
const CLUSTER =
  BUBBLEWRAP_HERE &&
  KERNEL_LIMITS_HERE &&
  BOUNDED_SPACE_HERE &&
  engineUnderTest() === 'postgres' &&
  (await redisReachable('the checkpoint cluster tests'));

const KIB = 1024;
/** Room for three 512 KiB versions of a file, not for three of 1 MiB. */
const BUDGET = 2560 * KIB;

interface Node {
  app: FastifyInstance;
  database: Database;
  dir: string;
}

let schema: Awaited<ReturnType<typeof createSchema>>;
let anthropic: FakeAnthropic;
let shared: string;
let nodes: Node[] = [];
let api: Client;

async function startNode(role: 'api' | 'worker', prefix: string): Promise<{ node: Node; url: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-checkpoint-node-'));
  const port = await freePort();
  const config = await loadConfig({
    ...TEST_ENV,
    ...agentEnv({ anthropic: anthropic.url, openai: anthropic.url }),
    DATA_DIR: dir,
    PORT: String(port),
    REDIS_URL: TEST_REDIS_URL,
    NODE_ROLE: role,
    BLOB_DIR: path.join(shared, 'blobs'),
    PUBLIC_DIR: path.join(shared, 'public'),
    CHECKPOINT_BYTES_PER_RUN: String(BUDGET),
    LOG_LEVEL: 'warn',
  });
  const database = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: schema.name, poolSize: 5 });
  const app = await buildApp({ config, database, clock: systemClock, redisPrefix: prefix });
  if (role === 'worker') await app.ready();
  else await app.listen({ host: '127.0.0.1', port });
  return { node: { app, database, dir }, url: `http://127.0.0.1:${port}` };
}

/** Bytes of the blobs in the shared folder (staging excluded). */
async function blobBytes(): Promise<number> {
  const root = path.join(shared, 'blobs');
  const entries = await readdir(root, { withFileTypes: true, recursive: true }).catch(() => []);
  let bytes = 0;
  for (const entry of entries) {
    const file = path.join(entry.parentPath, entry.name);
    if (entry.isFile() && !path.relative(root, file).split(path.sep).includes('tmp')) bytes += (await stat(file)).size;
  }
  return bytes;
}

/** Bash commands that each replace /workspace/big with `size` fresh random bytes, then one that waits while the test looks. */
function rewrites(times: number, size: string) {
  return [
    ...Array.from({ length: times }, (_, index) =>
      use(`w${index}`, 'bash', { command: `head -c ${size} /dev/urandom > /workspace/big` }),
    ),
    use('wait', 'bash', { command: 'sleep 3; echo waited' }),
    done,
  ];
}

describe.runIf(CLUSTER)("a run's checkpoints on a cluster", () => {
  beforeAll(async () => {
    anthropic = await startFakeAnthropic();
    shared = await mkdtemp(path.join(tmpdir(), 'skillet-checkpoint-shared-'));
    schema = await createSchema('checkpoints');
    const migrator = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: schema.name, poolSize: 1 });
    await migrateToLatest(migrator);
    await migrator.close();
    const prefix = `skillet-checkpoints:${randomUUID()}:`;
    const front = await startNode('api', prefix);
    nodes = [front.node, (await startNode('worker', prefix)).node, (await startNode('worker', prefix)).node];
    api = client(front.url);
  });

  afterAll(async () => {
    for (const node of nodes) {
      await node.app.close();
      await node.database.close();
      await rm(node.dir, { recursive: true, force: true });
    }
    await schema?.drop();
    await anthropic?.close();
    if (shared) await rm(shared, { recursive: true, force: true });
  });

  const journalKinds = async (executionId: string) =>
    (
      await (nodes[0] as Node).database.db
        .selectFrom('run_journal')
        .select('kind')
        .where('execution_id', '=', executionId)
        .execute()
    ).map((row) => row.kind);

  const answered = (kinds: string[]) => kinds.filter((kind) => kind === 'tool_result').length;

  test('keeps only the latest version of a file while the run goes on, and nothing once it ends', async () => {
    const person = await signUp(api);
    anthropic.forgetPlans();
    anthropic.plan(...rewrites(3, '512K'));
    const run = await startRun(api, person, 'computer-hostile', 'Rewrite the file.');
    // While the last command waits, three versions were checkpointed and one is left.
    await vi.waitFor(async () => expect(answered(await journalKinds(run.id))).toBe(3), { timeout: 15_000, interval: 50 });
    expect(await blobBytes()).toBe(512 * KIB);
    await run.stream.ended;
    expect(stopReasonOf(run.stream.events)).toBe('end_turn');
    await vi.waitFor(async () => expect(await blobBytes()).toBe(0), { timeout: 5000, interval: 50 });
  });

  test('stops checkpointing a run past its byte budget, saying so in the journal', async () => {
    const person = await signUp(api);
    anthropic.forgetPlans();
    anthropic.plan(...rewrites(3, '1M'));
    const run = await startRun(api, person, 'computer-hostile', 'Rewrite the file.');
    await vi.waitFor(async () => expect(await journalKinds(run.id)).toContain('files_untracked'), {
      timeout: 15_000,
      interval: 50,
    });
    // Two versions fit the budget; the third would pass it, and was never stored.
    expect(answered(await journalKinds(run.id))).toBe(3);
    expect(await blobBytes()).toBe(1024 * KIB);
    await run.stream.ended;
    expect(stopReasonOf(run.stream.events)).toBe('end_turn');
    await vi.waitFor(async () => expect(await blobBytes()).toBe(0), { timeout: 5000, interval: 50 });
  });
});

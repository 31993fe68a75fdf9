import { randomBytes, randomUUID } from 'node:crypto';
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
import { createSchema, engineUnderTest, postgresUrl } from '../../helpers/database.js';
import { session, signUp } from '../../helpers/factories.js';
import { uploadForm, uploadRaw } from '../../helpers/files.js';
import { client } from '../../helpers/http.js';
import { redisReachable, TEST_REDIS_URL } from '../../helpers/redis.js';
import { freePort, TEST_ENV } from '../../helpers/server.js';
import { echoFolder, installFolder } from '../../helpers/skill-folders.js';

/**
 * Two nodes of one cluster (PostgreSQL and Redis) hold one workspace to its storage limits
 * together: of two uploads that fit only one at a time, each sent to another node at the
 * same moment, exactly one is stored (issue 50, item 3). No lock in one process reaches
 * the other node; the workspace's row does.
 */
const CLUSTER = engineUnderTest() === 'postgres' && (await redisReachable('the cluster quota tests'));

interface Node {
  app: FastifyInstance;
  url: string;
  database: Database;
  dir: string;
}

async function startNode(schema: string, prefix: string, shared: string): Promise<Node> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-quota-node-'));
  const port = await freePort();
  const config = await loadConfig({
    ...TEST_ENV,
    DATA_DIR: dir,
    BLOB_DIR: path.join(shared, 'blobs'),
    PORT: String(port),
    REDIS_URL: TEST_REDIS_URL,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_REST_PER_MINUTE: '100000',
    WORKSPACE_STORAGE_LIMIT_BYTES: '2000',
    WORKSPACE_FILE_LIMIT: '3',
    WORKSPACE_SKILL_LIMIT: '1',
  });
  const database = openDatabase({ kind: 'postgres', url: postgresUrl(), schema, poolSize: 5 });
  const app = await buildApp({ config, database, clock: new ManualClock(), redisPrefix: prefix });
  await app.listen({ host: '127.0.0.1', port });
  return { app, url: `http://127.0.0.1:${port}`, database, dir };
}

describe.runIf(CLUSTER)('storage limits across two nodes', () => {
  let schema: Awaited<ReturnType<typeof createSchema>>;
  let shared: string;
  let nodes: [Node, Node];

  beforeAll(async () => {
    shared = await mkdtemp(path.join(tmpdir(), 'skillet-quota-shared-'));
    schema = await createSchema('cluster_quota');
    const migrator = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: schema.name, poolSize: 1 });
    await migrateToLatest(migrator);
    await migrator.close();
    const prefix = `skillet-cluster-quota:${randomUUID()}:`;
    nodes = [await startNode(schema.name, prefix, shared), await startNode(schema.name, prefix, shared)];
  });

  afterAll(async () => {
    for (const node of nodes ?? []) {
      await node.app.close();
      await node.database.close();
      await rm(node.dir, { recursive: true, force: true });
    }
    await schema?.drop();
    if (shared) await rm(shared, { recursive: true, force: true });
  });

  test('two uploads at once on two nodes never both pass a limit that fits one', async () => {
    const api = client(nodes[0].url);
    for (let round = 0; round < 15; round++) {
      const person = await signUp(api);
      const bytes = await Promise.all([
        uploadRaw(nodes[0].url, session(person), 'one.bin', randomBytes(1200)),
        uploadForm(nodes[1].url, session(person), 'two.bin', randomBytes(1200)),
      ]);
      expect(bytes.map((reply) => reply.status).sort()).toEqual([201, 413]);

      const counted = await signUp(api);
      await uploadRaw(nodes[0].url, session(counted), 'x', 'x');
      await uploadRaw(nodes[1].url, session(counted), 'y', 'y');
      const last = await Promise.all([
        uploadRaw(nodes[0].url, session(counted), 'z1', 'z1'),
        uploadRaw(nodes[1].url, session(counted), 'z2', 'z2'),
      ]);
      expect(last.map((reply) => reply.status).sort()).toEqual([201, 409]);
    }
  });

  test('two skill installs at once on two nodes never both pass a count that fits one', async () => {
    const api = client(nodes[0].url);
    const folder = await echoFolder();
    for (let round = 0; round < 8; round++) {
      const person = await signUp(api);
      const both = await Promise.all(
        nodes.map((node, index) => installFolder(client(node.url), person, 'echo', folder, `echo-${index}`)),
      );
      expect(both.map((reply) => reply.status).sort()).toEqual([201, 409]);
    }
  });
});

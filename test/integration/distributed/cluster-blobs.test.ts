import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { ManualClock } from '../../../src/clock.js';
import type { Env } from '../../../src/config.js';
import { loadConfig } from '../../../src/config-load.js';
import { type Database, openDatabase } from '../../../src/db/database.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import type { Manifest } from '../../../src/sdk/types.js';
import { type FakeS3, fakeS3 } from '../../fakes/s3.js';
import { bytesOf, runForArtifact, sha256, unzip } from '../../helpers/artifacts.js';
import { createSchema, engineUnderTest, postgresUrl } from '../../helpers/database.js';
import { session, signUp } from '../../helpers/factories.js';
import { client } from '../../helpers/http.js';
import { redisReachable, TEST_REDIS_URL } from '../../helpers/redis.js';
import { freePort, TEST_ENV } from '../../helpers/server.js';

/**
 * Two nodes of one cluster, each with a data folder of its own, on one blob store: a shared
 * folder (BLOB_DIR and PUBLIC_DIR) or an S3 bucket. Whichever node stored an artifact's
 * files, the other serves them, their ZIP and their published copy.
 */
const CLUSTER = engineUnderTest() === 'postgres' && (await redisReachable('the cluster blob tests'));

interface Node {
  app: FastifyInstance;
  url: string;
  database: Database;
  dir: string;
}

const clock = new ManualClock();

async function startNode(schema: string, prefix: string, store: Env): Promise<Node> {
  const dir = await mkdtemp(path.join(tmpdir(), 'skillet-blob-node-'));
  const port = await freePort();
  const config = await loadConfig({
    ...TEST_ENV,
    ...store,
    DATA_DIR: dir,
    PORT: String(port),
    REDIS_URL: TEST_REDIS_URL,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_REST_PER_MINUTE: '100000',
    RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
  });
  const database = openDatabase({ kind: 'postgres', url: postgresUrl(), schema, poolSize: 5 });
  const app = await buildApp({ config, database, clock, redisPrefix: prefix });
  await app.listen({ host: '127.0.0.1', port });
  return { app, url: `http://127.0.0.1:${port}`, database, dir };
}

const stores: Record<string, (s3: FakeS3, shared: string) => Env> = {
  'a shared folder': (_s3, shared) => ({ BLOB_DIR: path.join(shared, 'blobs'), PUBLIC_DIR: path.join(shared, 'public') }),
  'an S3 bucket': (s3) => ({
    BLOB_S3_BUCKET: s3.bucket,
    BLOB_S3_ENDPOINT: s3.url,
    BLOB_S3_ACCESS_KEY_ID: s3.accessKeyId,
    BLOB_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  }),
};

for (const [name, settings] of Object.entries(stores)) {
  describe.runIf(CLUSTER)(`two nodes on ${name}`, () => {
    let schema: Awaited<ReturnType<typeof createSchema>>;
    let s3: FakeS3;
    let shared: string;
    let nodes: [Node, Node];

    beforeAll(async () => {
      s3 = await fakeS3();
      shared = await mkdtemp(path.join(tmpdir(), 'skillet-shared-'));
      schema = await createSchema('cluster_blobs');
      const migrator = openDatabase({ kind: 'postgres', url: postgresUrl(), schema: schema.name, poolSize: 1 });
      await migrateToLatest(migrator);
      await migrator.close();
      const prefix = `skillet-cluster-blobs:${randomUUID()}:`;
      const store = settings(s3, shared);
      nodes = [await startNode(schema.name, prefix, store), await startNode(schema.name, prefix, store)];
    });

    afterAll(async () => {
      for (const node of nodes ?? []) {
        await node.app.close();
        await node.database.close();
        await rm(node.dir, { recursive: true, force: true });
      }
      await schema?.drop();
      await s3?.close();
      if (shared) await rm(shared, { recursive: true, force: true });
    });

    test('an artifact is downloaded, zipped and served published through either node, whichever stored it', async () => {
      const [a, b] = [client(nodes[0].url), client(nodes[1].url)];
      const person = await signUp(a);
      const { artifactId } = await runForArtifact(a, person, 'markdown-to-html', '# Shared\n\nBy *every* node.');
      const manifest = (await b.get<Manifest>(`/api/v1/artifacts/${artifactId}/manifest`, { headers: session(person) })).body;

      const published = await a.post<{ publicUrl: string }>(`/api/v1/artifacts/${artifactId}/publish`, {
        headers: session(person),
      });
      expect(published.status).toBe(200);
      // Any worker may have run it: each node serves it, so one of them did not store it.
      for (const node of nodes) {
        const archive = await bytesOf(`${node.url}/api/v1/artifacts/${artifactId}/download`, session(person));
        expect([archive.status, archive.headers.get('content-type')]).toEqual([200, 'application/zip']);
        const entries = await unzip(archive.body);
        for (const file of manifest.files) expect(`sha256:${sha256(entries.get(file.path) as Buffer)}`).toBe(file.checksum);
        const page = await bytesOf(published.body.publicUrl.replace(nodes[0].url, node.url), {});
        expect([page.status, page.body]).toEqual([200, entries.get('index.html')]);
      }
    });
  });
}

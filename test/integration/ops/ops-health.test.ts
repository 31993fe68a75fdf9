import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it as plain } from 'vitest';
import { withServer } from '../../helpers/fixtures.js';
import { client } from '../../helpers/http.js';
import { startServer } from '../../helpers/server.js';

// A tiny REST allowance: the probes must answer past it.
const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '3' });
const distributed = process.env.TEST_DISTRIBUTED === '1';

describe('GET /healthz and GET /readyz', () => {
  it('answer alive and ready, without a credential', async ({ api }) => {
    const health = await api.get('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });

    const ready = await api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({
      status: 'ready',
      checks: { database: 'ok', blobs: 'ok', shutdown: 'ok', ...(distributed ? { redis: 'ok' } : {}) },
    });
  });

  it('are never rate limited', async ({ api }) => {
    for (let i = 0; i < 8; i++) {
      expect((await api.get('/healthz')).status).toBe(200);
      const ready = await api.get('/readyz');
      expect(ready.status).toBe(200);
      expect(ready.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  it('are not part of the API description', async ({ api }) => {
    const document = await api.get<{ paths: Record<string, unknown> }>('/openapi.json');
    expect(Object.keys(document.body.paths)).not.toContain('/healthz');
    expect(Object.keys(document.body.paths)).not.toContain('/readyz');
  });

  it('/healthz asks the database nothing: it answers while /readyz does not', async () => {
    const server = await startServer();
    try {
      const api = client(server.url);
      await server.db.close();
      const started = Date.now();
      const ready = await api.get<{ status: string; checks: Record<string, string> }>('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body.status).toBe('unready');
      expect(ready.body.checks.database).toMatch(/^failed: /);
      expect(ready.body.checks.blobs).toBe('ok');
      expect(Date.now() - started).toBeLessThan(3000);
      expect((await api.get('/healthz')).status).toBe(200);
    } finally {
      await server.close().catch(() => undefined);
    }
  });
});

plain('a blob folder that cannot be written makes the node unready', async () => {
  const server = await startServer();
  try {
    // A file where the store's temporary folder should be: nothing can be written under it.
    if (server.config.blobs.kind !== 'folder') throw new Error('a folder store was expected');
    const temporary = path.join(server.config.blobs.dir, 'tmp');
    await rm(temporary, { recursive: true, force: true });
    await mkdir(server.config.blobs.dir, { recursive: true });
    await writeFile(temporary, 'not a folder');
    const ready = await client(server.url).get<{ checks: Record<string, string> }>('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.blobs).toMatch(/^failed: (ENOTDIR|EEXIST)/);
  } finally {
    await server.close();
  }
});

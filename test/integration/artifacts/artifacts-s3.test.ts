import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import type { Artifact, Manifest } from '../../../src/sdk/types.js';
import { fakeS3 } from '../../fakes/s3.js';
import { bytesOf, runForArtifact, sha256, unzip } from '../../helpers/artifacts.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

const PREFIX = 'skillet/blobs/';

const it = withServer()
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
  .extend('s3', { scope: 'file' }, async ({}, { onCleanup }) => {
    const s3 = await fakeS3({ pageSize: 3 });
    onCleanup(() => s3.close());
    return s3;
  })
  .extend('serverSettings', { scope: 'file' }, ({ s3 }) => ({
    env: {
      RATE_LIMIT_REST_PER_MINUTE: '100000',
      RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
      BLOB_S3_BUCKET: s3.bucket,
      BLOB_S3_ENDPOINT: s3.url,
      BLOB_S3_PREFIX: PREFIX,
      BLOB_S3_ACCESS_KEY_ID: s3.accessKeyId,
      BLOB_S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    },
    parts: {},
  }))
  .extend('person', { scope: 'file' }, ({ api }) => signUp(api))
  .extend(
    'download',
    { scope: 'file' },
    ({ server, person }) =>
      (id: string, suffix = 'download') =>
        bytesOf(`${server.url}/api/v1/artifacts/${id}/${suffix}`, session(person)),
  );

const stored = (s3: { objects: Map<string, unknown> }) =>
  [...s3.objects.keys()].filter((key) => key.startsWith(PREFIX)).map((key) => key.slice(PREFIX.length));

describe('artifacts on S3-compatible storage', () => {
  it('a bundle is stored in the bucket and downloads file by file and as a ZIP', async ({
    api,
    server,
    s3,
    person,
    download,
  }) => {
    const { artifactId } = await runForArtifact(api, person, 'markdown-to-html', '# Stored\n\nIn a *bucket*.');
    const manifest = (await api.get<Manifest>(`/api/v1/artifacts/${artifactId}/manifest`, { headers: session(person) })).body;
    const checksums = manifest.files.map((file) => file.checksum.slice('sha256:'.length));
    expect(stored(s3)).toEqual(expect.arrayContaining(checksums));
    // Nothing is kept on the node's disk: not the blobs, nor what was staged for upload.
    expect(existsSync(path.join(server.config.dataDir, 'blobs'))).toBe(false);
    expect(await readdir(path.join(server.config.dataDir, 'blob-staging'))).toEqual([]);

    const archive = await download(artifactId);
    expect([archive.status, archive.headers.get('content-type')]).toEqual([200, 'application/zip']);
    expect(Number(archive.headers.get('content-length'))).toBe(archive.body.length);
    const entries = await unzip(archive.body);
    expect([...entries.keys()]).toEqual(manifest.files.map((file) => file.path));
    for (const file of manifest.files) expect(`sha256:${sha256(entries.get(file.path) as Buffer)}`).toBe(file.checksum);

    const page = await download(artifactId, 'file/index.html');
    expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html']);
    expect(page.body).toEqual(entries.get('index.html'));
    const detail = await api.get<Artifact & { content: string }>(`/api/v1/artifacts/${artifactId}`, { headers: session(person) });
    expect(detail.body.content).toBe(entries.get('index.html')?.toString('utf8'));
  });

  it('a single file downloads whole, and raw serves the same bytes', async ({ api, person, download }) => {
    const { artifactId } = await runForArtifact(api, person, 'text-stats', 'One fish. Two fish.');
    const file = await download(artifactId);
    expect([file.status, file.headers.get('content-type')]).toEqual([200, 'application/json']);
    expect(JSON.parse(file.body.toString('utf8'))).toMatchObject({ words: 4 });
    expect((await download(artifactId, 'raw')).body).toEqual(file.body);
  });

  it('a skill artifact installs out of the bucket and runs by its slug', async ({ api, person }) => {
    const { artifactId } = await runForArtifact(api, person, 'skill-creator', 'Loud echo\nRepeats the input back.');
    const installed = await api.post<Artifact>(`/api/v1/artifacts/${artifactId}/install`, { headers: session(person) });
    expect([installed.status, installed.body]).toEqual([200, expect.objectContaining({ createdSkillSlug: 'loud-echo' })]);
    const run = await runForArtifact(api, person, 'loud-echo', 'hello there');
    const echoed = await api.get<Artifact & { content: string }>(`/api/v1/artifacts/${run.artifactId}`, {
      headers: session(person),
    });
    expect(echoed.body.content).toBe('hello there');
  });

  it('a published artifact is served from the bucket to anyone, and only while it is public', async ({
    api,
    server,
    s3,
    person,
    download,
  }) => {
    const first = (await runForArtifact(api, person, 'markdown-to-html', '# Public\n\nFor *everyone*.')).artifactId;
    const second = (await runForArtifact(api, person, 'markdown-to-html', '# Public\n\nFor *everyone*.')).artifactId;
    const published = await api.post<{ publicUrl: string; filesCopied: number }>(`/api/v1/artifacts/${first}/publish`, {
      headers: session(person),
    });
    expect([published.status, published.body.filesCopied]).toEqual([200, 2]);
    expect(published.body.publicUrl).toBe(`${server.url}/public/${first}/index.html`);
    const page = await bytesOf(published.body.publicUrl, {});
    expect([page.status, page.headers.get('content-type'), page.headers.get('content-security-policy')]).toEqual([
      200,
      'text/html',
      'sandbox',
    ]);
    expect(page.body).toEqual((await download(first, 'file/index.html')).body);
    expect((await bytesOf(`${server.url}/public/${first}/style.css`, {})).status).toBe(200);
    expect((await bytesOf(`${server.url}/public/${first}/missing.css`, {})).status).toBe(404);
    // Another artifact with the very same bytes is not public.
    expect((await bytesOf(`${server.url}/public/${second}/index.html`, {})).status).toBe(404);
    expect(existsSync(server.config.publicDir)).toBe(false);

    await api.post(`/api/v1/artifacts/${first}/unpublish`, { headers: session(person) });
    expect((await bytesOf(published.body.publicUrl, {})).status).toBe(404);
    await api.post(`/api/v1/artifacts/${first}/publish`, { headers: session(person) });
    expect((await bytesOf(published.body.publicUrl, {})).status).toBe(200);

    const blobs = (await api.get<Manifest>(`/api/v1/artifacts/${first}/manifest`, { headers: session(person) })).body.files.map(
      (file) => file.checksum.slice('sha256:'.length),
    );
    await api.delete(`/api/v1/artifacts/${first}`, { headers: session(person) });
    expect((await bytesOf(published.body.publicUrl, {})).status).toBe(404);
    expect(stored(s3)).toEqual(expect.arrayContaining(blobs));
    await api.delete(`/api/v1/artifacts/${second}`, { headers: session(person) });
    // One process collects at once; a cluster leaves young blobs to its sweep.
    if (!server.config.redisUrl) expect(stored(s3)).not.toContain(blobs[0]);
  });
});

import { parse as parseDisposition } from 'content-disposition';
import { describe, expect } from 'vitest';
import type { Artifact, Manifest } from '../../../src/sdk/types.js';
import { bytesOf, rawGet, runForArtifact, sha256, unzip } from '../../helpers/artifacts.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' })
  .extend('person', { scope: 'file' }, ({ api }) => signUp(api))
  .extend(
    'stats',
    { scope: 'file' },
    async ({ api, person }) =>
      (await runForArtifact(api, person, 'text-stats', 'One fish. Two fish. Red fish, blue fish.')).artifactId,
  )
  // Made after stats, so that the newest-first list is [site, stats].
  .extend(
    'site',
    { scope: 'file' },
    async ({ api, person, stats: _ }) =>
      (await runForArtifact(api, person, 'markdown-to-html', '# Hello\n\nA *small* page.')).artifactId,
  )
  // A GET as the file's person.
  .extend(
    'get',
    { scope: 'file' },
    ({ api, person }) =>
      <T>(path: string) =>
        api.get<T>(path, { headers: session(person) }),
  )
  // The bytes of one of the person's artifacts, from its download route unless another is given.
  .extend(
    'download',
    { scope: 'file' },
    ({ server, person }) =>
      (id: string, suffix = 'download') =>
        bytesOf(`${server.url}/api/v1/artifacts/${id}/${suffix}`, session(person)),
  );

const legacyError = (status: number, isRunning = false) => ({ error: expect.any(String), isRunning, status });

describe('artifacts written by runs', () => {
  it('a run that writes one file leaves a single-file artifact with every field', async ({ stats, get }) => {
    const detail = await get<Artifact>(`/api/v1/artifacts/${stats}`);
    expect(detail.status).toBe(200);
    expect(detail.body).toEqual({
      id: stats,
      skillSlug: 'text-stats',
      skillName: expect.any(String),
      title: 'One fish. Two fish. Red fish, blue fish.',
      fileType: 'application/json',
      artifactType: 'output',
      inputText: 'One fish. Two fish. Red fish, blue fish.',
      contentSize: expect.any(Number),
      createdSkillSlug: null,
      metadata: null,
      isInstalled: false,
      bundleType: null,
      status: 'completed',
      cost: expect.any(Number),
      executionTimeMs: expect.any(Number),
      createdAt: expect.any(String),
      isPublic: false,
      content: expect.stringContaining('"words": 8'),
    });
    expect(Buffer.byteLength(detail.body.content ?? '')).toBe(detail.body.contentSize);
    const manifest = await get(`/api/v1/artifacts/${stats}/manifest`);
    expect(manifest.status).toBe(404);
    expect(manifest.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  });

  it('a run that writes several files leaves a directory bundle with a manifest', async ({ site, get }) => {
    const detail = await get<Artifact>(`/api/v1/artifacts/${site}`);
    expect(detail.body).toMatchObject({ bundleType: 'directory', fileType: 'application/zip', status: 'completed' });
    expect(detail.body.content).toContain('<h1>Hello</h1>');
    expect(detail.body).not.toHaveProperty('fileList');
    const manifest = await get<Manifest>(`/api/v1/artifacts/${site}/manifest`);
    expect(manifest.status).toBe(200);
    expect(manifest.body).toEqual({
      version: '1',
      bundleType: 'directory',
      files: [
        {
          path: 'index.html',
          checksum: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
          size: expect.any(Number),
          mimeType: 'text/html',
        },
        {
          path: 'style.css',
          checksum: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
          size: expect.any(Number),
          mimeType: 'text/css',
        },
      ],
      createdAt: expect.any(String),
    });
    expect(detail.body.contentSize).toBe(manifest.body.files.reduce((sum, file) => sum + file.size, 0));
  });

  it("without a credential every artifact route is 401 in its family's shape", async ({ api, site }) => {
    for (const path of [`/api/v1/artifacts`, `/api/v1/artifacts/${site}`, `/api/v1/artifacts/${site}/download`]) {
      const reply = await api.get(path);
      expect([reply.status, reply.body], path).toEqual([401, { error: expect.any(String), isRunning: false }]);
    }
    const manifest = await api.get(`/api/v1/artifacts/${site}/manifest`);
    expect([manifest.status, manifest.body]).toEqual([401, { error: { code: 'UNAUTHORIZED', message: expect.any(String) } }]);
  });

  it('lists as a bare array without paging parameters and in an envelope with them', async ({ stats, site, get }) => {
    const bare = await get<Artifact[]>('/api/v1/artifacts');
    expect(bare.status).toBe(200);
    expect(bare.body.map((item) => item.id)).toEqual([site, stats]);
    expect(bare.body[0]?.fileList).toEqual([
      { path: 'index.html', size: expect.any(Number) },
      { path: 'style.css', size: expect.any(Number) },
    ]);
    expect(bare.body[0]).not.toHaveProperty('content');
    const page = await get('/api/v1/artifacts?limit=1');
    expect(page.body).toEqual({ items: [expect.objectContaining({ id: site })], total: 2, limit: 1, offset: 0, hasMore: true });
    const rest = await get('/api/v1/artifacts?offset=1');
    expect(rest.body).toEqual({
      items: [expect.objectContaining({ id: stats })],
      total: 2,
      limit: 20,
      offset: 1,
      hasMore: false,
    });
    for (const bad of ['limit=0', 'limit=101', 'limit=x', 'offset=-1']) {
      const refused = await get(`/api/v1/artifacts?${bad}`);
      expect({ ...(refused.body as object), status: refused.status }, bad).toEqual(legacyError(400));
    }
  });
});

describe('downloads', () => {
  it('a single file downloads with its type and the name the skill wrote; raw is text/plain', async ({ stats, download }) => {
    const file = await download(stats);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('application/json');
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(parseDisposition(file.headers.get('content-disposition') ?? '')).toEqual({
      type: 'attachment',
      parameters: { filename: 'stats.json' },
    });
    expect(JSON.parse(file.body.toString('utf8'))).toMatchObject({ words: 8 });
    const raw = await download(stats, 'raw');
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(raw.body).toEqual(file.body);
  });

  it('a bundle downloads as a ZIP whose files match the manifest in size and SHA-256', async ({ site, get, download }) => {
    const archive = await download(site);
    expect(archive.headers.get('content-type')).toBe('application/zip');
    expect(Number(archive.headers.get('content-length'))).toBe(archive.body.length);
    const entries = await unzip(archive.body);
    const manifest = (await get<Manifest>(`/api/v1/artifacts/${site}/manifest`)).body;
    expect([...entries.keys()]).toEqual(manifest.files.map((file) => file.path));
    for (const file of manifest.files) {
      const data = entries.get(file.path) as Buffer;
      expect(data.length).toBe(file.size);
      expect(`sha256:${sha256(data)}`).toBe(file.checksum);
    }
    const one = await download(site, 'file/style.css');
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toBe('text/css');
    expect(one.body).toEqual(entries.get('style.css'));
  });

  it('a bundle of 1,000 files lists, zips and checks out', async ({ api, person, get, download }) => {
    const files = Array.from({ length: 1000 }, (_, i) => ({ path: `part-${Math.floor(i / 100)}/file-${i}.bin`, bytes: 200 + i }));
    const { artifactId } = await runForArtifact(api, person, 'writer', JSON.stringify({ files }));
    const listed = await get<{ items: Artifact[] }>('/api/v1/artifacts?limit=1');
    expect(listed.body.items[0]?.fileList).toHaveLength(1000);
    const manifest = (await get<Manifest>(`/api/v1/artifacts/${artifactId}/manifest`)).body;
    expect(manifest.files).toHaveLength(1000);
    const entries = await unzip((await download(artifactId)).body);
    expect(entries.size).toBe(1000);
    for (const file of manifest.files) {
      const data = entries.get(file.path) as Buffer;
      expect(data.length).toBe(file.size);
      expect(`sha256:${sha256(data)}`).toBe(file.checksum);
    }
  });

  it('is titled by the page or Markdown heading it wrote when its input names none, and by the skill at last', async ({
    api,
    person,
    get,
  }) => {
    const titled = async (files: { path: string; text: string }[]) => {
      const { artifactId } = await runForArtifact(api, person, 'writer', JSON.stringify({ files }));
      return (await get<Artifact>(`/api/v1/artifacts/${artifactId}`)).body.title;
    };
    expect(await titled([{ path: 'index.html', text: '<html><head><title>Garden &amp; pond</title></head></html>' }])).toBe(
      'Garden & pond',
    );
    expect(await titled([{ path: 'notes.md', text: 'draft\n\n# Sprint review\n' }])).toBe('Sprint review');
    expect(await titled([{ path: 'data.json', text: '{"a": 1}' }])).toBe('Writer');
  });

  it('a title with quotes, newlines and non-Latin letters makes a safe Content-Disposition', async ({
    api,
    person,
    get,
    download,
  }) => {
    // The title is the one the run's JSON input gives, with the awkward characters; a
    // bundle's download is named by it (a single file keeps its own name).
    const files = [
      { path: 'note.txt', text: 'hi' },
      { path: 'more.txt', text: 'there' },
    ];
    const input = JSON.stringify({ title: 'Ré"sumé \\ 東京 / Москва', files }, null, 1);
    const { artifactId } = await runForArtifact(api, person, 'writer', input);
    const detail = await get<Artifact>(`/api/v1/artifacts/${artifactId}`);
    expect(detail.body.title).toBe('Ré"sumé \\ 東京 / Москва');
    expect(detail.body.inputText).toBe(input);
    const file = await download(artifactId);
    expect(file.status).toBe(200);
    const header = file.headers.get('content-disposition') ?? '';
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    const parsed = parseDisposition(header);
    expect(parsed.type).toBe('attachment');
    const name = parsed.parameters.filename ?? '';
    expect(name).not.toMatch(/[\r\n/\\]/);
    expect(name).toContain('Ré');
    expect(name).toContain('"');
    expect(name).toContain('東京 _ Москва');
    expect(name.endsWith('.zip')).toBe(true);
  });

  it('every response carrying user content is sandboxed and never sniffed: file, raw, download and the published copy', async ({
    api,
    person,
    stats,
    download,
  }) => {
    const input = '# Hi\n\n<script>fetch("/api/v1/keys")</script>';
    const page = (await runForArtifact(api, person, 'markdown-to-html', input)).artifactId;
    const published = await api.post<{ publicUrl: string }>(`/api/v1/artifacts/${page}/publish`, { headers: session(person) });
    expect(published.status).toBe(200);
    const responses = {
      file: await download(page, 'file/index.html'),
      raw: await download(page, 'raw'),
      zip: await download(page),
      single: await download(stats),
      public: await bytesOf(published.body.publicUrl, {}),
    };
    expect(responses.file.headers.get('content-type')).toBe('text/html');
    expect(responses.file.body.toString('utf8')).toContain('<script>');
    for (const [name, reply] of Object.entries(responses)) {
      expect(reply.status, name).toBe(200);
      expect(reply.headers.get('content-security-policy'), name).toBe('sandbox');
      expect(reply.headers.get('x-content-type-options'), name).toBe('nosniff');
    }
  });

  it('file/:path never reads outside the bundle', async ({ server, person, site }) => {
    const base = `/api/v1/artifacts/${site}/file/`;
    const attempts = [
      '../../../../etc/passwd',
      '..%2f..%2f..%2fetc%2fpasswd',
      '%2e%2e%2f%2e%2e%2fsigning-secret',
      '%2e%2e/%2e%2e/%2e%2e/signing-secret',
      'a/../index.html',
      './index.html',
      '%2fetc%2fpasswd',
      '/etc/passwd',
      'index.html%00.css',
      '..%5c..%5csigning-secret',
      '..\\..\\signing-secret',
      'style.css/',
      '',
    ];
    for (const attempt of attempts) {
      const reply = await rawGet(server.url, base + attempt, session(person));
      expect(reply.status, attempt).toBe(404);
      expect(JSON.parse(reply.body), attempt).toEqual({ error: expect.any(String), isRunning: false });
      expect(reply.body).not.toContain('<h1>');
    }
    expect((await rawGet(server.url, `${base}index.html`, session(person))).status).toBe(200);
  });
});

import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseDisposition } from 'content-disposition';
import { describe, expect } from 'vitest';
import { blobStoreFor } from '../../../src/artifacts/blob-store-for.js';
import { sweepExpiredFiles } from '../../../src/files/files.js';
import { sha256 } from '../../helpers/artifacts.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { type InputFile, uploadBody, uploadEndless, uploadForm, uploadRaw } from '../../helpers/files.js';
import { withServer } from '../../helpers/fixtures.js';
import type { TestServer } from '../../helpers/server.js';

const LIMIT = 1024 * 1024;
const DAY_MS = 24 * 3_600_000;

const it = withServer({
  FILE_UPLOAD_LIMIT: String(LIMIT),
  RATE_LIMIT_REST_PER_MINUTE: '100000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
}).extend('person', ({ api }) => signUp(api));

const notFound = { error: { code: 'NOT_FOUND', message: expect.any(String) } };

function blobDir(server: TestServer): string {
  const { blobs } = server.config;
  if (blobs.kind !== 'folder') throw new Error('these tests look at a folder store');
  return blobs.dir;
}

function blobExists(server: TestServer, digest: string): boolean {
  return existsSync(path.join(blobDir(server), digest.slice(0, 2), digest));
}

/** Whether deleted blobs go at once here: in a cluster only old ones are collected. */
const collectsAtOnce = (server: TestServer) => server.config.redisUrl === undefined;

async function temporaryFiles(server: TestServer): Promise<string[]> {
  return readdir(path.join(blobDir(server), 'tmp')).catch(() => []);
}

async function listOf(server: TestServer, person: TestUser, query = '') {
  const reply = await fetch(`${server.url}/api/v1/files${query}`, { headers: session(person) });
  return { status: reply.status, body: (await reply.json()) as { items: InputFile[]; total: number; hasMore: boolean } };
}

describe('uploading a file', () => {
  it('stores a raw body under its x-filename and gives back every field', async ({ server, person }) => {
    const bytes = Buffer.from('%PDF-1.4 pretend\n');
    const created = await uploadRaw(server.url, session(person), 'report.pdf', bytes, 'application/x-www-form-urlencoded');
    expect(created.status).toBe(201);
    const file = created.body;
    expect(file).toEqual({
      id: expect.any(String),
      filename: 'report.pdf',
      size: bytes.length,
      mimeType: 'application/pdf',
      sha256: sha256(bytes),
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(Date.parse(file.expiresAt ?? '') - Date.parse(file.createdAt)).toBe(7 * DAY_MS);
    expect(blobExists(server, file.sha256)).toBe(true);

    const detail = await fetch(`${server.url}/api/v1/files/${file.id}`, { headers: session(person) });
    expect(await detail.json()).toEqual(file);

    const content = await fetch(`${server.url}/api/v1/files/${file.id}/content`, { headers: session(person) });
    expect(content.status).toBe(200);
    expect(Buffer.from(await content.arrayBuffer())).toEqual(bytes);
    expect(content.headers.get('content-type')).toBe('application/pdf');
    expect(content.headers.get('x-content-type-options')).toBe('nosniff');
    expect(content.headers.get('content-security-policy')).toBe('sandbox');
    const disposition = parseDisposition(content.headers.get('content-disposition') ?? '');
    expect(disposition).toEqual({ type: 'attachment', parameters: { filename: 'report.pdf' } });
  });

  it('takes the file field of a multipart form, skipping the fields before it', async ({ server, person }) => {
    const bytes = Buffer.from(Array.from({ length: 300_000 }, (_, i) => i % 251));
    const created = await uploadForm(server.url, session(person), 'data.bin', bytes, {
      type: 'application/x-thing',
      before: { note: 'ignored', other: 'x'.repeat(10_000) },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      filename: 'data.bin',
      size: bytes.length,
      sha256: sha256(bytes),
      mimeType: 'application/x-thing',
    });
    const content = await fetch(`${server.url}/api/v1/files/${created.body.id}/content`, { headers: session(person) });
    expect(sha256(Buffer.from(await content.arrayBuffer()))).toBe(sha256(bytes));
  });

  it('stores an empty file, and the same bytes twice as two files of one blob', async ({ server, person }) => {
    const empty = await uploadRaw(server.url, session(person), 'empty.txt', '');
    expect(empty.body).toMatchObject({ size: 0, mimeType: 'text/plain' });
    const [first, second] = [
      await uploadRaw(server.url, session(person), 'same.txt', 'same'),
      await uploadForm(server.url, session(person), 'same.txt', 'same'),
    ];
    expect(first.body.id).not.toBe(second.body.id);
    expect(first.body.sha256).toBe(second.body.sha256);
  });

  it.for([
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\notes.txt', 'notes.txt'],
    ['.bashrc', 'bashrc'],
    ['...', 'file'],
    ['../', 'file'],
    ['  spaced name.txt  ', 'spaced name.txt'],
    // Header values are bytes: characters outside Latin-1 and controls arrive percent-encoded.
    ['tab%09here%07%0A.txt', 'tabhere.txt'],
    ['%E2%80%AEfdp.exe', 'fdp.exe'],
    ['%2E%2E%2F%2E%2E%2Fsecret', 'secret'],
    ['r%C3%A9sum%C3%A9.pdf', 'résumé.pdf'],
  ] as const)('cleans the name %j to %j', async ([raw, cleaned], { server, person }) => {
    const created = await uploadRaw(server.url, session(person), raw, 'x');
    expect(created.status).toBe(201);
    expect(created.body.filename).toBe(cleaned);
  });

  it('cleans a form field name of path parts and new lines, and bounds a long name keeping its extension', async ({
    server,
    person,
  }) => {
    const pathy = await uploadForm(server.url, session(person), '../../a\r\nb.txt', 'x');
    expect(pathy.status).toBe(201);
    expect(pathy.body.filename).not.toMatch(/[/\\\r\n]/);
    const long = await uploadRaw(server.url, session(person), `${'é'.repeat(300)}.pdf`, 'x');
    expect(long.body.filename.endsWith('.pdf')).toBe(true);
    expect(Buffer.byteLength(long.body.filename)).toBeLessThanOrEqual(200);
  });

  it('refuses a body with no name, and forms it cannot read, in the standard envelope', async ({ server, person }) => {
    const invalid = { error: { code: 'INVALID_INPUT', message: expect.any(String) } };
    const unnamed = await uploadBody(server.url, { ...session(person), 'content-type': 'application/octet-stream' }, 'x');
    expect(unnamed.status).toBe(400);
    expect(unnamed.body).toEqual(invalid);
    const form = (boundary: string) => ({ ...session(person), 'content-type': `multipart/form-data; boundary=${boundary}` });
    const noFileField = '--b\r\nContent-Disposition: form-data; name="other"\r\n\r\nx\r\n--b--\r\n';
    const truncated = '--b\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhalf of it';
    for (const [headers, body] of [
      [form('b'), noFileField],
      [form('b'), truncated],
      [form('b'), 'no boundary anywhere'],
      [{ ...session(person), 'content-type': 'multipart/form-data' }, noFileField],
    ] as const) {
      const reply = await uploadBody(server.url, headers, body);
      expect(reply.status, body).toBe(400);
      expect(reply.body).toEqual(invalid);
      expect(reply.text).not.toMatch(/POST|\/api\/v1/);
    }
    expect(await temporaryFiles(server)).toEqual([]);
  });

  it('refuses a file over FILE_UPLOAD_LIMIT with 413 and keeps nothing, however it is sent', async ({ server, person }) => {
    const before = await listOf(server, person);
    const over = Buffer.alloc(LIMIT + 1, 7);
    const declared = await uploadRaw(server.url, session(person), 'big.bin', over);
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('FILE_UPLOAD_LIMIT') },
    });
    const form = await uploadForm(server.url, session(person), 'big.bin', over);
    expect(form.status).toBe(413);
    // No declared length: the server reads up to the limit, answers, and reads no further.
    const endless = await uploadEndless(
      server.url,
      { ...session(person), 'x-filename': 'endless.bin', 'transfer-encoding': 'chunked' },
      Buffer.alloc(64 * 1024, 1),
      200 * LIMIT,
    );
    expect(endless.status).toBe(413);
    expect(endless.sentBytes).toBeLessThan(50 * LIMIT);
    expect(blobExists(server, sha256(over))).toBe(false);
    expect((await listOf(server, person)).body.total).toBe(before.body.total);
    expect(await temporaryFiles(server)).toEqual([]);
    // Exactly the limit is fine.
    const atLimit = await uploadRaw(server.url, session(person), 'at-limit.bin', Buffer.alloc(LIMIT, 7));
    expect(atLimit.status).toBe(201);
  });
});

describe('listing and deleting files', () => {
  it('pages like the artifacts list, newest first', async ({ server, api }) => {
    const person = await signUp(api);
    const names = ['one.txt', 'two.txt', 'three.txt'];
    for (const name of names) expect((await uploadRaw(server.url, session(person), name, name)).status).toBe(201);
    const first = await listOf(server, person, '?limit=2');
    expect(first.body).toMatchObject({ total: 3, limit: 2, offset: 0, hasMore: true });
    expect(first.body.items.map((file) => file.filename)).toEqual(['three.txt', 'two.txt']);
    const rest = await listOf(server, person, '?limit=2&offset=2');
    expect(rest.body).toMatchObject({ total: 3, limit: 2, offset: 2, hasMore: false });
    expect(rest.body.items.map((file) => file.filename)).toEqual(['one.txt']);
    expect((await listOf(server, person)).body).toMatchObject({ total: 3, limit: 20, offset: 0, hasMore: false });
    for (const query of ['?limit=0', '?limit=101', '?limit=-1', '?offset=x']) {
      expect((await listOf(server, person, query)).status, query).toBe(400);
    }
  });

  it('deletes a file: gone from every route, its blob gone unless another file has the same bytes', async ({
    server,
    person,
  }) => {
    const unique = await uploadRaw(server.url, session(person), 'unique.txt', `only here ${Math.random()}`);
    const shared = await uploadRaw(server.url, session(person), 'a.txt', 'shared bytes');
    const twin = await uploadRaw(server.url, session(person), 'b.txt', 'shared bytes');
    for (const file of [unique.body, shared.body]) {
      const deleted = await fetch(`${server.url}/api/v1/files/${file.id}`, { method: 'DELETE', headers: session(person) });
      expect(deleted.status).toBe(200);
      expect(await deleted.json()).toEqual({ success: true });
      for (const suffix of ['', '/content']) {
        const gone = await fetch(`${server.url}/api/v1/files/${file.id}${suffix}`, { headers: session(person) });
        expect(gone.status).toBe(404);
        expect(await gone.json()).toEqual(notFound);
      }
      const again = await fetch(`${server.url}/api/v1/files/${file.id}`, { method: 'DELETE', headers: session(person) });
      expect(again.status).toBe(404);
    }
    if (collectsAtOnce(server)) expect(blobExists(server, unique.body.sha256)).toBe(false);
    expect(blobExists(server, twin.body.sha256)).toBe(true);
    const still = await fetch(`${server.url}/api/v1/files/${twin.body.id}/content`, { headers: session(person) });
    expect(await still.text()).toBe('shared bytes');
  });

  it('sweeps files no run was given once 7 days have passed, and keeps those a run was given for 30 days', async ({
    server,
    api,
  }) => {
    const person = await signUp(api);
    const sweeper = { db: server.db.db, blobs: blobStoreFor(server.config), config: server.config, clock: server.clock };
    const loose = await uploadRaw(server.url, session(person), 'loose.txt', `loose ${Math.random()}`);
    const kept = await uploadRaw(server.url, session(person), 'kept.txt', 'kept');
    const created = await api.post('/api/v1/executions', {
      body: { skill_slug: 'reads-uploads', input: 'hello', files: [{ fileId: kept.body.id }] },
      headers: session(person),
    });
    expect(created.status).toBe(200);
    const keptNow = await fetch(`${server.url}/api/v1/files/${kept.body.id}`, { headers: session(person) });
    // ATTACHED_FILE_RETENTION_DAYS (30) after the run: test/integration/files/file-retention.test.ts.
    expect(Date.parse(((await keptNow.json()) as InputFile).expiresAt ?? '')).toBe(server.clock.nowMs() + 30 * DAY_MS);

    server.clock.advance(7 * DAY_MS - 1000);
    await sweepExpiredFiles(sweeper);
    expect((await listOf(server, person)).body.total).toBe(2);
    server.clock.advance(1000);
    expect(await sweepExpiredFiles(sweeper)).toBeGreaterThanOrEqual(1);
    const items = (await listOf(server, person)).body.items;
    expect(items.map((file) => file.filename)).toEqual(['kept.txt']);
    if (collectsAtOnce(server)) expect(blobExists(server, loose.body.sha256)).toBe(false);
    expect(blobExists(server, kept.body.sha256)).toBe(true);
  });
});

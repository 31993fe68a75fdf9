import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { runForArtifact, sha256 } from '../../helpers/artifacts.js';
import { runToEnd, sendMessage, streamOf } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { uploadRaw } from '../../helpers/files.js';
import { withServer } from '../../helpers/fixtures.js';
import { BUBBLEWRAP_HERE } from '../../helpers/sandbox.js';
import type { TestServer } from '../../helpers/server.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' }).extend(
  'person',
  ({ api }) => signUp(api),
);

async function executionCount(server: TestServer, person: TestUser): Promise<number> {
  const rows = await server.db.db
    .selectFrom('executions')
    .select('execution_id')
    .where('workspace_id', '=', person.user.personalWorkspaceId)
    .execute();
  return rows.length;
}

async function transactionCount(server: TestServer, person: TestUser): Promise<number> {
  return (await server.db.db.selectFrom('transactions').select('id').where('user_id', '=', person.user.id).execute()).length;
}

interface Report {
  files: { path: string; size: number; sha256: string }[];
  writes: { create: string; append: string };
}

describe('files on POST /executions', () => {
  it('refuses an unknown file or artifact with a 404 like its other 404s, and creates nothing', async ({
    server,
    api,
    person,
  }) => {
    const file = await uploadRaw(server.url, session(person), 'ok.txt', 'ok');
    const [executionsBefore, chargesBefore] = [await executionCount(server, person), await transactionCount(server, person)];
    for (const files of [
      [{ fileId: randomUUID() }],
      [{ fileId: file.body.id }, { artifactId: randomUUID() }],
      [{ fileId: file.body.id }, { fileId: 'x'.repeat(100) }],
    ]) {
      const reply = await api.post('/api/v1/executions', {
        body: { skill_slug: 'echo-summary', input: 'hi', files },
        headers: session(person),
      });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    }
    const unknownSkill = await api.post('/api/v1/executions', {
      body: { skill_slug: 'no-such-skill', input: 'hi' },
      headers: session(person),
    });
    expect(Object.keys(unknownSkill.body as object)).toEqual(['error']);
    expect(await executionCount(server, person)).toBe(executionsBefore);
    expect(await transactionCount(server, person)).toBe(chargesBefore);
    // The file was not attached: it still expires.
    const detail = await api.get<{ expiresAt: string | null }>(`/api/v1/files/${file.body.id}`, { headers: session(person) });
    expect(detail.body.expiresAt).not.toBeNull();
  });

  it('refuses more than 100 files, or more than 500 MB, and creates nothing', async ({ server, api, person }) => {
    const file = await uploadRaw(server.url, session(person), 'one.txt', 'one');
    const before = await executionCount(server, person);
    const many = await api.post('/api/v1/executions', {
      body: { skill_slug: 'echo-summary', input: 'hi', files: Array.from({ length: 101 }, () => ({ fileId: file.body.id })) },
      headers: session(person),
    });
    expect(many.status).toBe(400);
    expect(many.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.stringContaining('100 files') } });
    // A file as large as the limit allows on a server set so: its row, without 300 MB of bytes.
    const huge = randomUUID();
    await server.db.db
      .insertInto('input_files')
      .values({
        id: huge,
        workspace_id: person.user.personalWorkspaceId,
        user_id: person.user.id,
        filename: 'huge.bin',
        size: 300 * 1024 * 1024,
        mime_type: 'application/octet-stream',
        sha256: file.body.sha256,
        created_at: server.clock.now().toISOString(),
        expires_at: null,
      })
      .execute();
    const large = await api.post('/api/v1/executions', {
      body: { skill_slug: 'echo-summary', input: 'hi', files: [{ fileId: huge }, { fileId: huge }] },
      headers: session(person),
    });
    expect(large.status).toBe(413);
    expect(large.body).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
    const bad = await api.post('/api/v1/executions', {
      body: { skill_slug: 'echo-summary', input: 'hi', files: [{ fileId: file.body.id, artifactId: 'x' }] },
      headers: session(person),
    });
    expect(bad.status).toBe(400);
    const noInput = await api.post('/api/v1/executions', {
      body: { skill_slug: 'echo-summary', files: [{ fileId: file.body.id }] },
      headers: session(person),
    });
    expect(noInput.status).toBe(400);
    expect(await executionCount(server, person)).toBe(before);
  });

  it('a script skill reads its files in ./uploads/, cannot change them, and they are not in its artifact', async ({
    server,
    api,
    person,
  }) => {
    const auth = session(person);
    const first = await uploadRaw(server.url, auth, 'notes.txt', 'first notes');
    const second = await uploadRaw(server.url, auth, 'notes.txt', 'second notes');
    const writerInput = JSON.stringify({
      files: [
        { path: 'a.txt', text: 'A' },
        { path: 'sub/b.txt', text: 'B' },
      ],
    });
    const { artifactId } = await runForArtifact(api, person, 'writer', writerInput);

    const created = await api.post<{ id: string }>('/api/v1/executions', {
      body: {
        skill_slug: 'reads-uploads',
        input: 'See the attached files',
        files: [{ fileId: first.body.id }, { fileId: second.body.id }, { artifactId }],
      },
      headers: auth,
    });
    expect(created.status).toBe(200);
    const stream = await streamOf(api, person, created.body.id);
    expect((await sendMessage(api, person, created.body.id, 'See the attached files')).status).toBe(200);
    await stream.ended;
    const result = stream.events.find((event) => event.type === 'execution.result');
    expect(result, JSON.stringify(stream.events.slice(-3))).toBeDefined();
    const reportId = result?.payload.artifactId as string;

    const listing = await api.get<{ fileList: { path: string }[] }[]>('/api/v1/artifacts', { headers: auth });
    const written = listing.body.find((artifact) => (artifact as unknown as { id: string }).id === reportId);
    expect(written?.fileList.map((file) => file.path)).toEqual(['report.json']);
    const report = (await (await fetch(`${server.url}/api/v1/artifacts/${reportId}/raw`, { headers: auth })).json()) as Report;
    // An artifact's files sit under its title's folder: the writer's JSON input names none, so its skill's name.
    const folder = 'Writer';
    expect(report.files).toEqual(
      [
        { path: `${folder}/a.txt`, size: 1, sha256: sha256(Buffer.from('A')) },
        { path: `${folder}/sub/b.txt`, size: 1, sha256: sha256(Buffer.from('B')) },
        { path: 'notes (2).txt', size: 12, sha256: second.body.sha256 },
        { path: 'notes.txt', size: 11, sha256: first.body.sha256 },
      ].sort((a, b) => (a.path < b.path ? -1 : 1)),
    );
    // The files are mode 0444 as well, so a change to one may be refused before the mount is asked.
    if (BUBBLEWRAP_HERE) expect(report.writes).toEqual({ create: 'EROFS', append: expect.stringMatching(/^(EROFS|EACCES)$/) });
    // The run's folder went with the run.
    expect(await readdir(path.join(server.config.dataDir, 'run-uploads')).catch(() => [])).toEqual([]);
    // Files a run was given stay 30 days after it (ATTACHED_FILE_RETENTION_DAYS), and deleting one keeps the run's record.
    const detail = await api.get<{ expiresAt: string | null }>(`/api/v1/files/${first.body.id}`, { headers: auth });
    expect(Date.parse(detail.body.expiresAt ?? '')).toBe(server.clock.nowMs() + 30 * 24 * 3_600_000);
    expect((await api.delete(`/api/v1/files/${first.body.id}`, { headers: auth })).status).toBe(200);
    const status = await api.get<{ status: string }>(`/api/v1/executions/${created.body.id}/status`, { headers: auth });
    expect(status.body.status).toBe('completed');
    expect((await api.get(`/api/v1/artifacts/${reportId}`, { headers: auth })).status).toBe(200);
  });

  it('a run whose file was deleted before it started fails, uncharged, and says why', async ({ server, api, person }) => {
    const auth = session(person);
    const file = await uploadRaw(server.url, auth, 'gone.txt', 'gone');
    const created = await api.post<{ id: string }>('/api/v1/executions', {
      body: { skill_slug: 'reads-uploads', input: 'go', files: [{ fileId: file.body.id }] },
      headers: auth,
    });
    expect((await api.delete(`/api/v1/files/${file.body.id}`, { headers: auth })).status).toBe(200);
    const stream = await streamOf(api, person, created.body.id);
    await sendMessage(api, person, created.body.id, 'go');
    await stream.ended;
    const info = stream.events.find((event) => event.type === 'agent.info');
    expect(String(info?.payload.message)).toContain('deleted before it started');
    const status = await api.get<{ status: string }>(`/api/v1/executions/${created.body.id}/status`, { headers: auth });
    expect(status.body.status).toBe('failed');
  });

  it('a run without files completes as before', async ({ api, person }) => {
    const { stream } = await runToEnd(api, person, 'echo-summary', 'plain');
    expect(stream.events.find((event) => event.type === 'execution.result')).toBeDefined();
  });
});

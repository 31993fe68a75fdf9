import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect } from 'vitest';
import type { Artifact } from '../../../src/sdk/types.js';
import { rawGet, runForArtifact } from '../../helpers/artifacts.js';
import { createExecution, sendMessage, streamOf } from '../../helpers/executions.js';
import { createTeam, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' })
  .extend('owner', { scope: 'file' }, ({ api }) => signUp(api))
  .extend('admin', { scope: 'file' }, ({ api }) => signUp(api))
  .extend('member', { scope: 'file' }, ({ api }) => signUp(api))
  .extend('stranger', { scope: 'file' }, ({ api }) => signUp(api))
  // The owner's team, with the admin and the plain member in it.
  .extend('team', { scope: 'file' }, async ({ api, owner, admin, member }) => {
    const team = (await createTeam(api, owner)).id;
    for (const [user, role] of [
      [admin, 'admin'],
      [member, 'member'],
    ] as const) {
      const added = await api.post(`/api/v1/workspaces/${team}/members`, {
        body: { email: user.email, role },
        headers: session(owner),
      });
      expect(added.status).toBe(201);
    }
    return team;
  })
  .extend(
    'inTeam',
    { scope: 'file' },
    ({ team }) =>
      (user: TestUser) =>
        session(user, { 'x-workspace-id': team }),
  )
  .extend(
    'blobPath',
    { scope: 'file' },
    ({ server }) =>
      (sha256: string) =>
        path.join(server.config.dataDir, 'blobs', sha256.slice(0, 2), sha256),
  )
  .extend(
    'checksums',
    { scope: 'file' },
    ({ api }) =>
      async (id: string, headers: Record<string, string>) =>
        (await api.get<{ files: { checksum: string }[] }>(`/api/v1/artifacts/${id}/manifest`, { headers })).body.files.map(
          (file) => file.checksum.slice('sha256:'.length),
        ),
  );

const legacy = (isRunning = false) => ({ error: expect.any(String), isRunning });

describe('workspace scope', () => {
  it("another workspace's artifact is 404 on every route, in each route's shape", async ({ api, owner, stranger, inTeam }) => {
    const { artifactId } = await runForArtifact(api, owner, 'markdown-to-html', '# Private');
    const them = session(stranger);
    for (const [method, suffix] of [
      ['get', ''],
      ['get', '/download'],
      ['get', '/raw'],
      ['get', '/file/index.html'],
      ['delete', ''],
      ['post', '/unpublish'],
      ['post', '/install'],
    ] as const) {
      const reply = await api[method](`/api/v1/artifacts/${artifactId}${suffix}`, { headers: them });
      expect([reply.status, reply.body], `${method} ${suffix}`).toEqual([404, legacy()]);
    }
    for (const [method, suffix] of [
      ['get', '/manifest'],
      ['post', '/publish'],
    ] as const) {
      const reply = await api[method](`/api/v1/artifacts/${artifactId}${suffix}`, { headers: them });
      expect([reply.status, reply.body], suffix).toEqual([404, { error: { code: 'NOT_FOUND', message: expect.any(String) } }]);
    }
    // The owner's own team does not see their personal artifacts either.
    expect((await api.get(`/api/v1/artifacts/${artifactId}`, { headers: inTeam(owner) })).status).toBe(404);
    expect((await api.get<unknown[]>('/api/v1/artifacts', { headers: them })).body).toEqual([]);
  });
});

describe('publishing', () => {
  it('a plain member may not publish or unpublish; an admin may, and the files are served sandboxed', async ({
    server,
    api,
    admin,
    member,
    team,
    inTeam,
  }) => {
    const { artifactId } = await runForArtifact(api, member, 'markdown-to-html', '# Team page\n\n<script>alert(1)</script>', {
      'x-workspace-id': team,
    });
    const refused = await api.post(`/api/v1/artifacts/${artifactId}/publish`, { headers: inTeam(member) });
    expect([refused.status, refused.body]).toEqual([403, { error: { code: 'FORBIDDEN', message: expect.any(String) } }]);
    const unpublish = await api.post(`/api/v1/artifacts/${artifactId}/unpublish`, { headers: inTeam(member) });
    expect([unpublish.status, unpublish.body]).toEqual([403, legacy()]);

    const published = await api.post<{ publicUrl: string; filesCopied: number }>(`/api/v1/artifacts/${artifactId}/publish`, {
      headers: inTeam(admin),
    });
    expect(published.status).toBe(200);
    expect(published.body).toEqual({ publicUrl: `${server.url}/public/${artifactId}/index.html`, filesCopied: 2 });
    const page = await fetch(published.body.publicUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html');
    expect(page.headers.get('content-security-policy')).toBe('sandbox');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await page.text()).toContain('Team page');
    expect((await fetch(`${server.url}/public/${artifactId}/style.css`)).headers.get('content-type')).toBe('text/css');
    const detail = await api.get<Artifact>(`/api/v1/artifacts/${artifactId}`, { headers: inTeam(member) });
    expect(detail.body.isPublic).toBe(true);

    for (const attempt of [
      '../../signing-secret',
      '%2e%2e%2f%2e%2e%2fsigning-secret',
      '..%5c..%5csigning-secret',
      '',
      'index.html%00',
    ]) {
      const reply = await rawGet(server.url, `/public/${artifactId}/${attempt}`);
      expect(reply.status, attempt).toBe(404);
    }
    expect((await rawGet(server.url, '/public/../signing-secret')).status).toBe(404);
    expect((await rawGet(server.url, '/public/not-an-id/index.html')).status).toBe(404);
  });

  it("a plain member may not delete the owner's published artifact (nor any other); the owner and an admin may", async ({
    api,
    owner,
    admin,
    member,
    team,
    inTeam,
  }) => {
    const { artifactId } = await runForArtifact(api, owner, 'markdown-to-html', '# Owner page', { 'x-workspace-id': team });
    const published = await api.post<{ publicUrl: string }>(`/api/v1/artifacts/${artifactId}/publish`, {
      headers: inTeam(owner),
    });
    expect(published.status).toBe(200);

    const refused = await api.delete(`/api/v1/artifacts/${artifactId}`, { headers: inTeam(member) });
    expect([refused.status, refused.body]).toEqual([403, legacy()]);
    expect((await fetch(published.body.publicUrl)).status).toBe(200);
    const kept = await api.get<Artifact>(`/api/v1/artifacts/${artifactId}`, { headers: inTeam(owner) });
    expect([kept.status, kept.body.isPublic]).toEqual([200, true]);
    // Delete follows publish's rule, so not even what the member ran themselves.
    const own = (await runForArtifact(api, member, 'markdown-to-html', '# Member page', { 'x-workspace-id': team })).artifactId;
    expect((await api.delete(`/api/v1/artifacts/${own}`, { headers: inTeam(member) })).status).toBe(403);

    const byAdmin = await api.delete(`/api/v1/artifacts/${artifactId}`, { headers: inTeam(admin) });
    expect([byAdmin.status, byAdmin.body]).toEqual([200, { success: true }]);
    expect((await fetch(published.body.publicUrl)).status).toBe(404);
    const byOwner = await api.delete(`/api/v1/artifacts/${own}`, { headers: inTeam(owner) });
    expect([byOwner.status, byOwner.body]).toEqual([200, { success: true }]);
  });

  it('unpublish and delete take the public copy down; delete keeps blobs another artifact still uses', async ({
    api,
    owner,
    blobPath,
    checksums,
    server,
  }) => {
    const first = (await runForArtifact(api, owner, 'markdown-to-html', '# Shared bytes')).artifactId;
    const second = (await runForArtifact(api, owner, 'markdown-to-html', '# Shared bytes')).artifactId;
    const other = (await runForArtifact(api, owner, 'markdown-to-html', '# Another page')).artifactId;
    const blobs = await checksums(first, session(owner));
    expect(await checksums(second, session(owner))).toEqual(blobs);
    const [page, style] = blobs as [string, string];
    // Every page shares its style sheet; only the two "Shared bytes" pages share their index.html.
    expect(await checksums(other, session(owner))).toEqual([expect.not.stringMatching(page), style]);

    const published = await api.post<{ publicUrl: string }>(`/api/v1/artifacts/${first}/publish`, { headers: session(owner) });
    expect((await fetch(published.body.publicUrl)).status).toBe(200);
    const unpublished = await api.post(`/api/v1/artifacts/${first}/unpublish`, { headers: session(owner) });
    expect([unpublished.status, unpublished.body]).toEqual([200, { success: true }]);
    expect((await fetch(published.body.publicUrl)).status).toBe(404);
    expect((await api.get<Artifact>(`/api/v1/artifacts/${first}`, { headers: session(owner) })).body.isPublic).toBe(false);

    await api.post(`/api/v1/artifacts/${first}/publish`, { headers: session(owner) });
    const deleted = await api.delete(`/api/v1/artifacts/${first}`, { headers: session(owner) });
    expect([deleted.status, deleted.body]).toEqual([200, { success: true }]);
    expect((await fetch(published.body.publicUrl)).status).toBe(404);
    const gone = await api.get(`/api/v1/artifacts/${first}`, { headers: session(owner) });
    expect([gone.status, gone.body]).toEqual([404, legacy()]);
    for (const sha256 of blobs) expect(existsSync(blobPath(sha256))).toBe(true);

    await api.delete(`/api/v1/artifacts/${second}`, { headers: session(owner) });
    // In a cluster a young blob waits for the lease holder's sweep (another node may be about to reference it).
    expect(existsSync(blobPath(page))).toBe(server.config.redisUrl !== undefined);
    expect(existsSync(blobPath(style))).toBe(true);
  });
});

describe('an artifact whose run is still writing it', () => {
  it('answers 429 with isRunning true, then fails with the cancelled run and keeps no files', async ({ api, owner }) => {
    const created = await createExecution(api, owner, 'slow-writer', 'go');
    const stream = await streamOf(api, owner, created.id);
    await sendMessage(api, owner, created.id, 'go');
    while (!stream.events.some((event) => event.type === 'agent.message')) await stream.waitFor(stream.events.length + 1);
    const [pending] = (await api.get<Artifact[]>('/api/v1/artifacts', { headers: session(owner) })).body;
    expect(pending).toMatchObject({ status: 'pending', skillSlug: 'slow-writer', fileList: [] });
    const id = pending?.id as string;
    for (const [method, suffix] of [
      ['get', ''],
      ['get', '/download'],
      ['get', '/raw'],
      ['get', '/file/note.txt'],
      ['delete', ''],
      ['post', '/unpublish'],
      ['post', '/install'],
    ] as const) {
      const reply = await api[method](`/api/v1/artifacts/${id}${suffix}`, { headers: session(owner) });
      expect([reply.status, reply.body], `${method} ${suffix}`).toEqual([429, legacy(true)]);
    }
    const publish = await api.post(`/api/v1/artifacts/${id}/publish`, { headers: session(owner) });
    expect([publish.status, publish.body]).toEqual([429, { error: 'EXECUTION_RUNNING', message: expect.any(String) }]);

    expect((await api.post(`/api/v1/executions/${created.id}/cancel`, { headers: session(owner) })).status).toBe(200);
    await stream.ended;
    const failed = await api.get<Artifact>(`/api/v1/artifacts/${id}`, { headers: session(owner) });
    expect(failed.body).toMatchObject({ status: 'failed', content: '', contentSize: 0 });
    const download = await api.get(`/api/v1/artifacts/${id}/download`, { headers: session(owner) });
    expect([download.status, download.body]).toEqual([409, legacy()]);
    expect((await api.delete(`/api/v1/artifacts/${id}`, { headers: session(owner) })).status).toBe(200);
  });
});

describe('skill artifacts', () => {
  it('skill-creator output installs into the workspace, runs by its slug there, and nowhere else', async ({
    api,
    owner,
    stranger,
  }) => {
    const description = 'Loud echo\nRepeats the input back.';
    const { artifactId } = await runForArtifact(api, owner, 'skill-creator', description);
    const artifact = (await api.get<Artifact>(`/api/v1/artifacts/${artifactId}`, { headers: session(owner) })).body;
    expect(artifact).toMatchObject({
      artifactType: 'skill',
      bundleType: 'directory',
      isInstalled: false,
      createdSkillSlug: null,
    });
    expect(artifact.content).toContain('slug: loud-echo');

    const installed = await api.post<Artifact>(`/api/v1/artifacts/${artifactId}/install`, { headers: session(owner) });
    expect(installed.status).toBe(200);
    expect(installed.body).toMatchObject({ id: artifactId, isInstalled: true, createdSkillSlug: 'loud-echo' });
    expect((await api.post(`/api/v1/artifacts/${artifactId}/install`, { headers: session(owner) })).body).toEqual(installed.body);

    const run = await runForArtifact(api, owner, 'loud-echo', 'hello there');
    expect(run.events.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'end_turn' } } });
    const echoed = await api.get<Artifact>(`/api/v1/artifacts/${run.artifactId}`, { headers: session(owner) });
    expect(echoed.body).toMatchObject({ skillSlug: 'loud-echo', content: 'hello there' });
    const elsewhere = await api.post('/api/v1/executions', {
      body: { skill_slug: 'loud-echo', input: 'x' },
      headers: session(stranger),
    });
    expect(elsewhere.status).toBe(404);

    const again = await runForArtifact(api, owner, 'skill-creator', description);
    const clash = await api.post(`/api/v1/artifacts/${again.artifactId}/install`, { headers: session(owner) });
    expect([clash.status, clash.body]).toEqual([409, legacy()]);
    const notSkill = await api.post(`/api/v1/artifacts/${run.artifactId}/install`, { headers: session(owner) });
    expect([notSkill.status, notSkill.body]).toEqual([400, legacy()]);
  });
});

import { describe, expect } from 'vitest';
import { runForArtifact } from '../helpers/artifacts.js';
import { createKey, session, signUp } from '../helpers/factories.js';
import { uploadForm, uploadRaw } from '../helpers/files.js';
import { withServer } from '../helpers/fixtures.js';

/**
 * Input files belong to their workspace: another workspace's file is not there at all, on
 * every route and as a run's input, whether named as a file or through an artifact.
 */
const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000', RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000' })
  .extend('owner', { scope: 'file' }, ({ api }) => signUp(api))
  .extend('stranger', { scope: 'file' }, ({ api }) => signUp(api));

const notFound = { error: { code: 'NOT_FOUND', message: expect.any(String) } };

describe("another workspace's files", () => {
  it('are 404 on every files route, and are left as they were', async ({ server, api, owner, stranger }) => {
    const file = await uploadRaw(server.url, session(owner), 'private.txt', 'private bytes');
    expect(file.status).toBe(201);
    const id = file.body.id;
    for (const [method, suffix] of [
      ['GET', ''],
      ['GET', '/content'],
      ['DELETE', ''],
    ] as const) {
      const reply = await fetch(`${server.url}/api/v1/files/${id}${suffix}`, { method, headers: session(stranger) });
      expect(reply.status, `${method} ${suffix}`).toBe(404);
      expect(await reply.json()).toEqual(notFound);
    }
    const list = await api.get<{ items: { id: string }[]; total: number }>('/api/v1/files', { headers: session(stranger) });
    expect(list.body.items.map((item) => item.id)).not.toContain(id);
    const still = await fetch(`${server.url}/api/v1/files/${id}/content`, { headers: session(owner) });
    expect(await still.text()).toBe('private bytes');
  });

  it('are 404 as a run input, by file id and by artifact id, and nothing is created', async ({
    server,
    api,
    owner,
    stranger,
  }) => {
    const file = await uploadRaw(server.url, session(owner), 'private.txt', 'private bytes');
    const { artifactId } = await runForArtifact(api, owner, 'writer', JSON.stringify({ files: [{ path: 'a.txt', text: 'A' }] }));
    const own = await uploadRaw(server.url, session(stranger), 'mine.txt', 'mine');
    const countOf = async () =>
      (
        await server.db.db
          .selectFrom('executions')
          .select('execution_id')
          .where('workspace_id', '=', stranger.user.personalWorkspaceId)
          .execute()
      ).length;
    const before = await countOf();
    for (const files of [[{ fileId: file.body.id }], [{ artifactId }], [{ fileId: own.body.id }, { fileId: file.body.id }]]) {
      const reply = await api.post('/api/v1/executions', {
        body: { skill_slug: 'echo-summary', input: 'steal', files },
        headers: session(stranger),
      });
      expect(reply.status, JSON.stringify(files)).toBe(404);
      expect(reply.body).toEqual(notFound);
    }
    expect(await countOf()).toBe(before);
  });

  it('an API key reaches its own workspace files and no other', async ({ server, api, owner, stranger }) => {
    const key = await createKey(api, owner);
    const keyHeaders = { 'x-api-key': key.key };
    const uploaded = await uploadForm(server.url, keyHeaders, 'by-key.txt', 'by key');
    expect(uploaded.status).toBe(201);
    expect((await fetch(`${server.url}/api/v1/files/${uploaded.body.id}`, { headers: session(owner) })).status).toBe(200);
    expect((await fetch(`${server.url}/api/v1/files/${uploaded.body.id}`, { headers: session(stranger) })).status).toBe(404);
    const anonymous = await uploadRaw(server.url, {}, 'anon.txt', 'anon');
    expect(anonymous.status).toBe(401);
  });
});

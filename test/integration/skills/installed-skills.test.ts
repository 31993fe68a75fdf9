import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { PROJECT_ROOT } from '../../../src/paths.js';
import type { InstalledSkill, SkillFolderFile, SkillItem } from '../../../src/sdk/types.js';
import { runForArtifact } from '../../helpers/artifacts.js';
import { createExecution, runToEnd, sendMessage } from '../../helpers/executions.js';
import { createTeam, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';
import { echoFolder, folderFile, installFolder, resultOf, storedSkillsOf } from '../../helpers/skill-folders.js';

/** Issue 51, item 2: a workspace's installed skills are listed, shown, updated and removed. */
const BYTES = 100_000;
const it = withServer({
  WORKSPACE_STORAGE_LIMIT_BYTES: String(BYTES),
  WORKSPACE_SKILL_LIMIT: '2',
  RATE_LIMIT_REST_PER_MINUTE: '100000',
  RATE_LIMIT_EXECUTIONS_PER_MINUTE: '100000',
}).extend('person', ({ api }) => signUp(api));

type Page = { items: SkillItem[]; total: number };
type Reply = InstalledSkill & { success?: true; error?: { code: string; message: string } };

const listOf = async (api: Client, person: TestUser, url = '/api/v1/skills?limit=100') =>
  (await api.get<Page>(url, { headers: session(person) })).body.items;
const showOf = (api: Client, person: TestUser, slug: string, headers = session(person)) =>
  api.get<SkillItem & { error?: { code: string; message: string } }>(`/api/v1/skills/${slug}`, { headers });
const update = (api: Client, person: TestUser, slug: string, files: SkillFolderFile[], headers = session(person)) =>
  api.put<Reply>(`/api/v1/skills/${slug}`, { body: { folderName: 'anything', files }, headers });
const remove = (api: Client, person: TestUser, slug: string, headers = session(person)) =>
  api.delete<Reply>(`/api/v1/skills/${slug}`, { headers });

/** The echo skill under another name: a new version of the same folder. */
async function echoNamed(name: string, padding = 0): Promise<SkillFolderFile[]> {
  const [manifest, entry] = await echoFolder();
  const source = Buffer.from(manifest?.content ?? '', 'base64')
    .toString('utf8')
    .replace(/^name: .*$/m, `name: ${name}`);
  const pad = padding > 0 ? [folderFile('pad.bin', Buffer.alloc(padding, 1))] : [];
  return [folderFile('SKILL.md', source), entry as SkillFolderFile, ...pad];
}

async function hangsFolder(): Promise<SkillFolderFile[]> {
  const dir = path.join(PROJECT_ROOT, 'test', 'skills', 'hangs');
  return Promise.all(['SKILL.md', 'main.mjs'].map(async (name) => folderFile(name, await readFile(path.join(dir, name)))));
}

describe("a workspace's installed skills", () => {
  it('are listed and shown beside the server’s, marked as the workspace’s own, and are unknown to other workspaces', async ({
    api,
    person,
  }) => {
    expect((await installFolder(api, person, 'my-echo', await echoFolder())).status).toBe(201);
    for (const url of ['/api/v1/skills?limit=100', '/api/v1/marketplace/skills?limit=100']) {
      const items = await listOf(api, person, url);
      expect(items.find((skill) => skill.slug === 'my-echo')).toMatchObject({ name: 'Echo Summary', source: 'workspace' });
      expect(items.find((skill) => skill.slug === 'echo-summary')?.source).toBe('server');
      expect(items.map((skill) => skill.slug)).toEqual(items.map((skill) => skill.slug).sort());
    }
    const shown = await showOf(api, person, 'my-echo');
    expect([shown.status, shown.body.source, shown.body.runtime, shown.body.input]).toEqual([
      200,
      'workspace',
      'script',
      expect.stringContaining('Test skill'),
    ]);
    expect((await showOf(api, person, 'echo-summary')).body.source).toBe('server');

    const stranger = await signUp(api);
    expect((await listOf(api, stranger)).some((skill) => skill.slug === 'my-echo')).toBe(false);
    const unknown = (await showOf(api, stranger, 'my-echo')).body;
    expect(unknown.error).toEqual({
      code: 'NOT_FOUND',
      message: 'There is no skill called my-echo here. See the list of skills for the slugs you can run.',
    });
    for (const refused of [await update(api, stranger, 'my-echo', await echoFolder()), await remove(api, stranger, 'my-echo')]) {
      expect([refused.status, refused.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    }
    // Still the owner's, untouched.
    expect((await showOf(api, person, 'my-echo')).status).toBe(200);
  });

  it('is updated from a new version of its folder under the same slug, and runs that version', async ({
    api,
    person,
    server,
  }) => {
    expect((await installFolder(api, person, 'my-echo', await echoFolder())).status).toBe(201);
    const updated = await update(api, person, 'my-echo', await echoNamed('Echo Two'));
    expect([updated.status, updated.body]).toEqual([
      200,
      { slug: 'my-echo', name: 'Echo Two', description: expect.any(String), runtime: 'script', files: 2 },
    ]);
    expect((await showOf(api, person, 'my-echo')).body.name).toBe('Echo Two');
    const { stream } = await runToEnd(api, person, 'my-echo', 'after the update');
    expect(resultOf(stream.events)).toBe('after the update');
    // One skill, one folder: the old version's went.
    expect(await storedSkillsOf(server, person)).toEqual({ skills: ['my-echo'], files: 2, folders: 1 });

    const broken = await update(api, person, 'my-echo', [folderFile('main.mjs', 'x')]);
    expect([broken.status, broken.body.error?.message]).toEqual([400, expect.stringMatching(/has no SKILL\.md/)]);
    expect((await showOf(api, person, 'my-echo')).body.name).toBe('Echo Two');

    const builtIn = await update(api, person, 'echo-summary', await echoFolder());
    expect([builtIn.status, builtIn.body.error?.message]).toEqual([
      403,
      "echo-summary is one of this server's own skills, so it cannot be updated here. Ask the operator.",
    ]);
  });

  it('is removed: it no longer lists, shows or runs, past runs keep their history, and its files go', async ({
    api,
    person,
    server,
  }) => {
    expect((await installFolder(api, person, 'my-echo', await echoFolder())).status).toBe(201);
    const { created } = await runToEnd(api, person, 'my-echo', 'before removal');

    const removed = await remove(api, person, 'my-echo');
    expect([removed.status, removed.body]).toEqual([200, { success: true }]);
    expect((await listOf(api, person)).some((skill) => skill.slug === 'my-echo')).toBe(false);
    expect((await showOf(api, person, 'my-echo')).status).toBe(404);
    const run = await api.post('/api/v1/executions', { body: { skill_slug: 'my-echo', input: 'x' }, headers: session(person) });
    expect(run.status).toBe(404);
    const past = await api.get<{ status: string; skillSlug: string }>(`/api/v1/executions/${created.id}/status`, {
      headers: session(person),
    });
    expect([past.status, past.body.status, past.body.skillSlug]).toEqual([200, 'completed', 'my-echo']);
    expect(await storedSkillsOf(server, person)).toEqual({ skills: [], files: 0, folders: 0 });

    const again = await remove(api, person, 'my-echo');
    expect([again.status, again.body.error?.message]).toEqual([
      404,
      'This workspace has no installed skill called my-echo. See the list of skills for the ones it has.',
    ]);
    expect((await remove(api, person, 'echo-summary')).status).toBe(403);
    // The slug is free again.
    expect((await installFolder(api, person, 'my-echo', await echoFolder())).status).toBe(201);
  });

  it("may be changed by the workspace's owners and admins, not its plain members", async ({ api, person }) => {
    const team = await createTeam(api, person);
    const [admin, member] = [await signUp(api), await signUp(api)];
    for (const [who, role] of [
      [admin, 'admin'],
      [member, 'member'],
    ] as const) {
      const added = await api.post(`/api/v1/workspaces/${team.id}/members`, {
        body: { email: who.email, role },
        headers: session(person),
      });
      expect(added.status).toBe(201);
    }
    const inTeam = (who: TestUser) => session(who, { 'x-workspace-id': team.id });
    const installed = await api.post('/api/v1/skills', {
      body: { folderName: 'team-echo', files: await echoFolder() },
      headers: inTeam(member),
    });
    expect(installed.status).toBe(201);
    expect((await showOf(api, member, 'team-echo', inTeam(member))).body.source).toBe('workspace');

    for (const refused of [
      await update(api, member, 'team-echo', await echoNamed('Mine'), inTeam(member)),
      await remove(api, member, 'team-echo', inTeam(member)),
    ]) {
      expect([refused.status, refused.body.error?.message]).toEqual([
        403,
        expect.stringMatching(
          /^Only the workspace's owners and admins can change its skills, so team-echo was not (updated|removed)\. Ask one of them\.$/,
        ),
      ]);
    }
    expect((await update(api, admin, 'team-echo', await echoNamed('By Admin'), inTeam(admin))).status).toBe(200);
    expect((await remove(api, admin, 'team-echo', inTeam(admin))).status).toBe(200);
    // The person's own workspace never had it.
    expect((await showOf(api, person, 'team-echo')).status).toBe(404);
  });

  it('is not removed or updated while a run of it is in progress; once the run ends it is', async ({ api, person }) => {
    expect((await installFolder(api, person, 'my-hangs', await hangsFolder())).status).toBe(201);
    const created = await createExecution(api, person, 'my-hangs', 'go');
    expect((await sendMessage(api, person, created.id, 'go')).status).toBe(200);
    await expect
      .poll(
        async () =>
          (await api.get<{ status: string }>(`/api/v1/executions/${created.id}/status`, { headers: session(person) })).body
            .status,
      )
      .toBe('working');

    const message = (verb: string) =>
      `A run of my-hangs is in progress, so the skill was not ${verb}. Wait for it to end or cancel it, then try again.`;
    const busyRemove = await remove(api, person, 'my-hangs');
    expect([busyRemove.status, busyRemove.body.error]).toEqual([409, { code: 'CONFLICT', message: message('removed') }]);
    const busyUpdate = await update(api, person, 'my-hangs', await hangsFolder());
    expect([busyUpdate.status, busyUpdate.body.error?.message]).toEqual([409, message('updated')]);

    expect((await api.post(`/api/v1/executions/${created.id}/cancel`, { body: {}, headers: session(person) })).status).toBe(200);
    await expect
      .poll(
        async () =>
          (await api.get<{ status: string }>(`/api/v1/executions/${created.id}/status`, { headers: session(person) })).body
            .status,
      )
      .not.toBe('working');
    expect((await remove(api, person, 'my-hangs')).status).toBe(200);
  });

  it('frees its count and its bytes when removed, and an update counts only the new version', async ({ api, person }) => {
    const big = Math.floor(BYTES * 0.6);
    expect((await installFolder(api, person, 'big', await echoNamed('Big', big))).status).toBe(201);
    // A second folder that size does not fit beside it...
    const over = await installFolder(api, person, 'other', await echoNamed('Other', big));
    expect(over.status).toBe(413);
    // ...but a new version of the same skill does: the old one's bytes are freed first.
    expect((await update(api, person, 'big', await echoNamed('Big Two', big))).status).toBe(200);

    expect((await installFolder(api, person, 'small', await echoFolder())).status).toBe(201);
    // Two skills: the workspace's limit, yet an update still goes through.
    expect((await update(api, person, 'small', await echoNamed('Small Two'))).status).toBe(200);
    const third = await installFolder(api, person, 'third', await echoFolder());
    expect([third.status, third.body.error?.code]).toEqual([409, 'CONFLICT']);

    expect((await remove(api, person, 'big')).status).toBe(200);
    expect((await installFolder(api, person, 'other', await echoNamed('Other', big))).status).toBe(201);
  });

  it('answers malformed requests with a 4xx in words', async ({ api, person }) => {
    expect((await installFolder(api, person, 'my-echo', await echoFolder())).status).toBe(201);
    const long = 'a'.repeat(101);
    const asked = [
      await showOf(api, person, long),
      await remove(api, person, long),
      await api.put<Reply>('/api/v1/skills/my-echo', { body: {}, headers: session(person) }),
      await api.put<Reply>('/api/v1/skills/my-echo', {
        body: { folderName: 'x', files: [], slug: 'other' },
        headers: session(person),
      }),
      await update(api, person, 'my-echo', []),
      await api.delete<Reply>('/api/v1/skills/my-echo', { headers: {} }),
    ];
    expect(asked.map((reply) => reply.status)).toEqual([400, 400, 400, 400, 400, 401]);
    // The 401's words are the spec's own; the rest say what to send.
    for (const reply of asked.slice(0, 5)) {
      expect(reply.body.error?.message).toMatch(/^[A-Z].*[.!]$/);
      expect(reply.body.error?.message).not.toMatch(/must (NOT|have|match)|params\/|body\/|\/api\/v1/);
    }
    // None of it touched the skill.
    expect((await showOf(api, person, 'my-echo')).body.name).toBe('Echo Summary');
  });

  it('installed from a skill artifact: listed as the workspace’s, removed, its artifact installable again, past runs’ artifacts kept', async ({
    api,
    person,
  }) => {
    const headers = session(person);
    const { artifactId } = await runForArtifact(api, person, 'skill-creator', 'Loud echo\nRepeats the input back.');
    expect((await api.post(`/api/v1/artifacts/${artifactId}/install`, { headers })).status).toBe(200);
    expect((await showOf(api, person, 'loud-echo')).body.source).toBe('workspace');
    const run = await runForArtifact(api, person, 'loud-echo', 'hello there');

    expect((await remove(api, person, 'loud-echo')).status).toBe(200);
    const artifact = await api.get<{ isInstalled: boolean }>(`/api/v1/artifacts/${artifactId}`, { headers });
    expect([artifact.status, artifact.body.isInstalled]).toEqual([200, false]);
    const output = await api.get<{ content: string }>(`/api/v1/artifacts/${run.artifactId}`, { headers });
    expect([output.status, output.body.content]).toEqual([200, 'hello there']);
    expect((await showOf(api, person, 'loud-echo')).status).toBe(404);

    const reinstalled = await api.post<{ isInstalled: boolean }>(`/api/v1/artifacts/${artifactId}/install`, { headers });
    expect([reinstalled.status, reinstalled.body.isInstalled]).toEqual([200, true]);
    expect((await runForArtifact(api, person, 'loud-echo', 'once more')).artifactId).toEqual(expect.any(String));
  });
});

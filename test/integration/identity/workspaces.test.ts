import { describe, expect } from 'vitest';
import { createKey, createTeam, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withApp } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

const it = withApp({ RATE_LIMIT_REST_PER_MINUTE: '10000' }).extend('owner', { scope: 'file' }, ({ api }) => signUp(api));

const addMember = (api: Client, workspaceId: string, by: TestUser, body: unknown) =>
  api.post(`/api/v1/workspaces/${workspaceId}/members`, { body, headers: session(by) });

describe('POST and GET /api/v1/workspaces', () => {
  it('creates a team workspace owned by the caller and lists it after the personal one', async ({ api }) => {
    const person = await signUp(api);
    const created = await api.post('/api/v1/workspaces', { body: { name: '  Research  ' }, headers: session(person) });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      name: 'Research',
      personal: false,
      role: 'owner',
      createdAt: expect.any(String),
    });
    const list = await api.get<{ workspaces: { id: string; personal: boolean }[] }>('/api/v1/workspaces', {
      headers: session(person),
    });
    expect(list.body.workspaces.map((w) => [w.personal, w.id])).toEqual([
      [true, person.user.personalWorkspaceId],
      [false, (created.body as { id: string }).id],
    ]);
  });

  it('refuses a missing, blank or oversized name', async ({ api, owner }) => {
    for (const body of [{}, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 5 }]) {
      const reply = await api.post('/api/v1/workspaces', { body, headers: session(owner) });
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.any(String) } });
    }
  });
});

describe('POST /api/v1/workspaces/:id/members', () => {
  it('adds a user by email with a role; they then see the workspace', async ({ api, owner }) => {
    const team = await createTeam(api, owner);
    const colleague = await signUp(api);
    const reply = await addMember(api, team.id, owner, { email: colleague.email.toUpperCase(), role: 'member' });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({ workspaceId: team.id, userId: colleague.user.id, email: colleague.email, role: 'member' });
    const theirs = await api.get<{ workspaces: { id: string; role: string }[] }>('/api/v1/workspaces', {
      headers: session(colleague),
    });
    expect(theirs.body.workspaces).toContainEqual(expect.objectContaining({ id: team.id, role: 'member' }));
  });

  it('lets admins add members but not owners; members add nobody', async ({ api, owner }) => {
    const team = await createTeam(api, owner);
    const admin = await signUp(api);
    const member = await signUp(api);
    await addMember(api, team.id, owner, { email: admin.email, role: 'admin' });
    expect((await addMember(api, team.id, admin, { email: member.email, role: 'member' })).status).toBe(201);
    const someone = await signUp(api);
    expect((await addMember(api, team.id, admin, { email: someone.email, role: 'owner' })).status).toBe(403);
    expect((await addMember(api, team.id, member, { email: someone.email, role: 'member' })).status).toBe(403);
  });

  it('answers 404 for a workspace the caller is not in, and for an unknown email', async ({ api, owner }) => {
    const team = await createTeam(api, owner);
    const outsider = await signUp(api);
    const notMine = await addMember(api, team.id, outsider, { email: outsider.email, role: 'member' });
    expect(notMine.status).toBe(404);
    expect(notMine.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Workspace not found' } });
    expect((await addMember(api, team.id, owner, { email: 'nobody@example.test', role: 'member' })).status).toBe(404);
  });

  it('answers 409 for someone already in, 403 for a personal workspace, 400 for a bad role', async ({ api, owner }) => {
    const team = await createTeam(api, owner);
    const colleague = await signUp(api);
    await addMember(api, team.id, owner, { email: colleague.email, role: 'member' });
    expect((await addMember(api, team.id, owner, { email: colleague.email, role: 'admin' })).status).toBe(409);
    expect((await addMember(api, owner.user.personalWorkspaceId, owner, { email: colleague.email, role: 'member' })).status).toBe(
      403,
    );
    expect((await addMember(api, team.id, owner, { email: colleague.email, role: 'king' })).status).toBe(400);
  });
});

describe('x-workspace-id and PUT /api/v1/workspaces/current', () => {
  it('acts in a named workspace when the caller is a member, else 403; a non-UUID is 400', async ({ api, owner }) => {
    const team = await createTeam(api, owner, 'Ops');
    const me = await api.get<{ workspace: { id: string; name: string } }>('/api/v1/me', {
      headers: session(owner, { 'x-workspace-id': team.id }),
    });
    expect(me.body.workspace).toMatchObject({ id: team.id, name: 'Ops', role: 'owner' });

    const outsider = await signUp(api);
    const forbidden = await api.get('/api/v1/me', { headers: session(outsider, { 'x-workspace-id': team.id }) });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.any(String) } });
    const garbage = await api.get('/api/v1/me', { headers: session(owner, { 'x-workspace-id': 'not-a-uuid' }) });
    expect(garbage.status).toBe(400);
  });

  it('switches the active workspace of an auth token', async ({ api }) => {
    const person = await signUp(api);
    const team = await createTeam(api, person, 'Switched');
    const reply = await api.put('/api/v1/workspaces/current', { body: { workspaceId: team.id }, headers: session(person) });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ workspace: expect.objectContaining({ id: team.id, name: 'Switched', role: 'owner' }) });
    const me = await api.get<{ workspace: { id: string } }>('/api/v1/me', { headers: session(person) });
    expect(me.body.workspace.id).toBe(team.id);
    const key = await createKey(api, person);
    expect(key.workspaceId).toBe(team.id);
  });

  it('refuses to re-point an API key, and refuses a workspace the caller is not in', async ({ api }) => {
    const person = await signUp(api);
    const team = await createTeam(api, person);
    const key = await createKey(api, person);
    const byKey = await api.put('/api/v1/workspaces/current', {
      body: { workspaceId: team.id },
      headers: { 'x-api-key': key.key },
    });
    expect(byKey.status).toBe(403);
    const stranger = await signUp(api);
    const notMine = await api.put('/api/v1/workspaces/current', { body: { workspaceId: team.id }, headers: session(stranger) });
    expect(notMine.status).toBe(403);
    const missing = await api.put('/api/v1/workspaces/current', { body: {}, headers: session(person) });
    expect(missing.status).toBe(400);
  });

  it('an API key may repeat its own workspace in x-workspace-id, but not name another', async ({ api }) => {
    const person = await signUp(api);
    const team = await createTeam(api, person);
    const key = await createKey(api, person);
    const same = await api.get('/api/v1/me', { headers: { 'x-api-key': key.key, 'x-workspace-id': key.workspaceId } });
    expect(same.status).toBe(200);
    const other = await api.get('/api/v1/me', { headers: { 'x-api-key': key.key, 'x-workspace-id': team.id } });
    expect(other.status).toBe(403);
  });
});

describe('GET /api/v1/workspaces/:id/members', () => {
  it('lists every member with their role, to any member', async ({ api, owner }) => {
    const team = await createTeam(api, owner);
    const colleague = await signUp(api);
    await addMember(api, team.id, owner, { email: colleague.email, role: 'admin' });
    for (const reader of [owner, colleague]) {
      const reply = await api.get<{ members: unknown[] }>(`/api/v1/workspaces/${team.id}/members`, { headers: session(reader) });
      expect(reply.status).toBe(200);
      expect(reply.body.members).toEqual([
        { workspaceId: team.id, userId: owner.user.id, email: owner.email, role: 'owner' },
        { workspaceId: team.id, userId: colleague.user.id, email: colleague.email, role: 'admin' },
      ]);
    }
  });

  it("is 404 to anyone outside the workspace, and to a key bound to another of the person's workspaces", async ({
    api,
    owner,
  }) => {
    const team = await createTeam(api, owner);
    const stranger = await signUp(api);
    const refused = await api.get(`/api/v1/workspaces/${team.id}/members`, { headers: session(stranger) });
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Workspace not found' } });
    expect(refused.text).not.toContain(owner.email);
    const { key } = await createKey(api, owner); // bound to the owner's personal workspace
    expect((await api.get(`/api/v1/workspaces/${team.id}/members`, { headers: { 'x-api-key': key } })).status).toBe(404);
    const own = await api.get<{ members: unknown[] }>(`/api/v1/workspaces/${owner.user.personalWorkspaceId}/members`, {
      headers: { 'x-api-key': key },
    });
    expect(own.body.members).toHaveLength(1);
    expect((await api.get('/api/v1/workspaces/not-a-uuid/members', { headers: session(owner) })).status).toBe(404);
  });
});

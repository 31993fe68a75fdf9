import { describe, expect } from 'vitest';
import { createKey, createTeam, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

const it = withServer();

/** A team with an owner, an admin and a member. */
async function team(api: Client) {
  const owner = await signUp(api);
  const workspace = await createTeam(api, owner, 'Crew');
  const [admin, member] = [await signUp(api), await signUp(api)];
  for (const [who, role] of [
    [admin, 'admin'],
    [member, 'member'],
  ] as const) {
    const added = await api.post(`/api/v1/workspaces/${workspace.id}/members`, {
      body: { email: who.email, role },
      headers: session(owner),
    });
    expect(added.status).toBe(201);
  }
  return { owner, admin, member, id: workspace.id };
}

const roleOf = async (api: Client, who: TestUser, teamId: string, userId: string) =>
  (
    await api.get<{ members: { userId: string; role: string }[] }>(`/api/v1/workspaces/${teamId}/members`, {
      headers: session(who),
    })
  ).body.members.find((one) => one.userId === userId)?.role;

describe('managing a team', () => {
  it('renames a team workspace for owners and admins only, never a personal one', async ({ api }) => {
    const { owner, admin, member, id } = await team(api);
    const renamed = await api.patch(`/api/v1/workspaces/${id}`, { body: { name: '  Night crew ' }, headers: session(admin) });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'Night crew', personal: false, role: 'admin' });
    const listed = await api.get<{ workspaces: { id: string; name: string }[] }>('/api/v1/workspaces', {
      headers: session(member),
    });
    expect(listed.body.workspaces.find((one) => one.id === id)?.name).toBe('Night crew');

    const byMember = await api.patch(`/api/v1/workspaces/${id}`, { body: { name: 'Mine' }, headers: session(member) });
    expect(byMember.status).toBe(403);
    expect(byMember.body).toEqual({
      error: { code: 'FORBIDDEN', message: 'Only an owner or an admin can rename the workspace. Ask one of them.' },
    });
    const blank = await api.patch(`/api/v1/workspaces/${id}`, { body: { name: '   ' }, headers: session(owner) });
    expect(blank.status).toBe(400);
    const personal = await api.patch(`/api/v1/workspaces/${owner.user.personalWorkspaceId}`, {
      body: { name: 'Me' },
      headers: session(owner),
    });
    expect(personal.status).toBe(403);
    // Someone outside learns nothing, not even that it exists.
    const stranger = await signUp(api);
    const outside = await api.patch(`/api/v1/workspaces/${id}`, { body: { name: 'Ours' }, headers: session(stranger) });
    expect(outside.status).toBe(404);
  });

  it('changes roles within the rules: only owners touch owners, and one owner always stays', async ({ api }) => {
    const { owner, admin, member, id } = await team(api);
    const promoted = await api.patch(`/api/v1/workspaces/${id}/members/${member.user.id}`, {
      body: { role: 'admin' },
      headers: session(admin),
    });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toEqual({ workspaceId: id, userId: member.user.id, email: member.email, role: 'admin' });

    const adminMakesOwner = await api.patch(`/api/v1/workspaces/${id}/members/${member.user.id}`, {
      body: { role: 'owner' },
      headers: session(admin),
    });
    expect(adminMakesOwner.status).toBe(403);
    const adminDemotesOwner = await api.patch(`/api/v1/workspaces/${id}/members/${owner.user.id}`, {
      body: { role: 'member' },
      headers: session(admin),
    });
    expect(adminDemotesOwner.status).toBe(403);
    const lastOwner = await api.patch(`/api/v1/workspaces/${id}/members/${owner.user.id}`, {
      body: { role: 'admin' },
      headers: session(owner),
    });
    expect(lastOwner.status).toBe(409);
    expect(lastOwner.body).toEqual({
      error: { code: 'CONFLICT', message: 'A workspace needs an owner. Make someone else an owner first.' },
    });
    expect(await roleOf(api, owner, id, owner.user.id)).toBe('owner');

    // The new role holds at once, on the credentials the person already has.
    const demoted = await api.patch(`/api/v1/workspaces/${id}/members/${admin.user.id}`, {
      body: { role: 'member' },
      headers: session(owner),
    });
    expect(demoted.status).toBe(200);
    const demotedAdds = await api.post(`/api/v1/workspaces/${id}/members`, {
      body: { email: (await signUp(api)).email, role: 'member' },
      headers: session(admin, { 'x-workspace-id': id }),
    });
    expect(demotedAdds.status).toBe(403);

    const unknown = await api.patch(`/api/v1/workspaces/${id}/members/nobody`, {
      body: { role: 'member' },
      headers: session(owner),
    });
    expect(unknown.status).toBe(404);
  });

  it('keeps one owner when two owners demote each other at once (raced 10 times)', async ({ api }) => {
    for (let round = 0; round < 10; round++) {
      const { owner, admin, id } = await team(api);
      const raised = await api.patch(`/api/v1/workspaces/${id}/members/${admin.user.id}`, {
        body: { role: 'owner' },
        headers: session(owner),
      });
      expect(raised.status).toBe(200);
      const answers = await Promise.all([
        api.patch(`/api/v1/workspaces/${id}/members/${admin.user.id}`, { body: { role: 'member' }, headers: session(owner) }),
        api.patch(`/api/v1/workspaces/${id}/members/${owner.user.id}`, { body: { role: 'member' }, headers: session(admin) }),
      ]);
      // The one that loses is refused as a member now (403), or for taking the last owner (409).
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses[0]).toBe(200);
      expect([403, 409]).toContain(statuses[1]);
      const roles = await Promise.all([owner, admin].map((who) => roleOf(api, owner, id, who.user.id)));
      expect(roles.filter((role) => role === 'owner')).toHaveLength(1);
    }
  });

  it('removes a member: their key for the team stops working and their session goes back to their own workspace', async ({
    api,
  }) => {
    const { owner, admin, member, id } = await team(api);
    const switched = await api.put('/api/v1/workspaces/current', { body: { workspaceId: id }, headers: session(member) });
    expect(switched.status).toBe(200);
    const key = await createKey(api, member, 'team key');
    expect(key.workspaceId).toBe(id);
    expect((await api.get('/api/v1/me', { headers: { 'x-api-key': key.key } })).status).toBe(200);

    const byMember = await api.delete(`/api/v1/workspaces/${id}/members/${admin.user.id}`, { headers: session(member) });
    expect(byMember.status).toBe(403);
    const adminRemovesOwner = await api.delete(`/api/v1/workspaces/${id}/members/${owner.user.id}`, { headers: session(admin) });
    expect(adminRemovesOwner.status).toBe(403);

    const removed = await api.delete(`/api/v1/workspaces/${id}/members/${member.user.id}`, { headers: session(admin) });
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ success: true });
    expect((await api.get('/api/v1/me', { headers: { 'x-api-key': key.key } })).status).toBe(401);
    const me = await api.get<{ workspace: { id: string } }>('/api/v1/me', { headers: session(member) });
    expect(me.body.workspace.id).toBe(member.user.personalWorkspaceId);
    const members = await api.get(`/api/v1/workspaces/${id}/members`, { headers: session(member) });
    expect(members.status).toBe(404);
    const again = await api.delete(`/api/v1/workspaces/${id}/members/${member.user.id}`, { headers: session(admin) });
    expect(again.status).toBe(404);
  });

  it('lets anyone leave but the last owner', async ({ api }) => {
    const { owner, member, id } = await team(api);
    const left = await api.delete(`/api/v1/workspaces/${id}/members/${member.user.id}`, { headers: session(member) });
    expect(left.status).toBe(200);
    const ownerLeaves = await api.delete(`/api/v1/workspaces/${id}/members/${owner.user.id}`, { headers: session(owner) });
    expect(ownerLeaves.status).toBe(409);
    expect(ownerLeaves.body).toEqual({
      error: { code: 'CONFLICT', message: 'You are the only owner. Make someone else an owner first, then leave.' },
    });
  });

  it('lets a key of another workspace touch nothing here', async ({ api }) => {
    const { owner, member, id } = await team(api);
    const personalKey = await createKey(api, owner, 'personal key');
    const answers = await Promise.all([
      api.patch(`/api/v1/workspaces/${id}`, { body: { name: 'x' }, headers: { 'x-api-key': personalKey.key } }),
      api.patch(`/api/v1/workspaces/${id}/members/${member.user.id}`, {
        body: { role: 'admin' },
        headers: { 'x-api-key': personalKey.key },
      }),
      api.delete(`/api/v1/workspaces/${id}/members/${member.user.id}`, { headers: { 'x-api-key': personalKey.key } }),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404]);
  });
});

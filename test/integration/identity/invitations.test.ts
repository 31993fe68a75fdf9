import { afterAll, describe, expect } from 'vitest';
import { type FakeSmtp, startFakeSmtp } from '../../fakes/smtp.js';
import { createKey, createTeam, session, signUp, type TestUser, uniqueEmail } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

const smtp = await startFakeSmtp();
afterAll(() => smtp.close());

const it = withServer({ SMTP_URL: smtp.url, MAIL_FROM: 'Skillet <no-reply@skillet.test>', RATE_LIMIT_REST_PER_MINUTE: '100000' });

interface Invitation {
  id: string;
  workspaceId: string;
  email: string;
  role: string;
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
  status: string;
}

/** The token in the newest mail to `email` (quoted-printable soft breaks undone). */
async function tokenMailedTo(mails: FakeSmtp['mails'], email: string, count = 1): Promise<string> {
  await expect.poll(() => mails.filter((mail) => mail.to.includes(email)).length).toBe(count);
  const raw = mails.filter((mail) => mail.to.includes(email)).at(-1)?.raw ?? '';
  const body = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const found = /https?:\/\/\S+\/app\/invitation#token=(sklt_invite_[0-9A-Za-z]{40})/.exec(body);
  expect(found, body).not.toBeNull();
  return found?.[1] as string;
}

async function invite(api: Client, by: TestUser, workspaceId: string, email: string, role = 'member') {
  return api.post<Invitation>(`/api/v1/workspaces/${workspaceId}/invitations`, { body: { email, role }, headers: session(by) });
}

/** A team whose owner invited a fresh address: the invitation, and the token mailed. */
async function invited(api: Client, role = 'member') {
  const owner = await signUp(api);
  const team = await createTeam(api, owner, 'Night crew');
  const email = uniqueEmail('invitee');
  const made = await invite(api, owner, team.id, email, role);
  expect(made.status).toBe(201);
  return { owner, team, email, invitation: made.body, token: await tokenMailedTo(smtp.mails, email) };
}

const accept = (api: Client, who: TestUser, token: string) =>
  api.post<{ workspace: { id: string; role: string } }>('/api/v1/invitations/accept', { body: { token }, headers: session(who) });

describe('inviting people to a team by email', () => {
  it('mails a link that the invited address accepts once, joining with the role given', async ({ api }) => {
    const { owner, team, email, invitation, token } = await invited(api, 'admin');
    expect(invitation).toMatchObject({ workspaceId: team.id, email, role: 'admin', invitedBy: owner.email, status: 'pending' });
    expect(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt)).toBe(7 * 24 * 60 * 60 * 1000);
    const mail = smtp.mails.filter((one) => one.to.includes(email)).at(-1);
    expect(mail?.raw).toContain(`Subject: ${owner.email} invited you to Night crew on Skillet`);

    const preview = await api.post('/api/v1/invitations/preview', { body: { token } });
    expect(preview.status).toBe(200);
    expect(preview.body).toEqual({
      workspaceName: 'Night crew',
      email,
      role: 'admin',
      invitedBy: owner.email,
      expiresAt: invitation.expiresAt,
    });

    // Signing up from the link: an account with the invited address, then accepting.
    const invitee = await signUp(api, email);
    const joined = await accept(api, invitee, token);
    expect(joined.status).toBe(200);
    expect(joined.body.workspace).toMatchObject({ id: team.id, role: 'admin', personal: false });
    const members = await api.get<{ members: { email: string; role: string }[] }>(`/api/v1/workspaces/${team.id}/members`, {
      headers: session(owner),
    });
    expect(members.body.members).toContainEqual(expect.objectContaining({ email, role: 'admin' }));

    const again = await accept(api, invitee, token);
    expect(again.status).toBe(410);
    expect(again.body).toEqual({
      error: {
        code: 'EXPIRED',
        message:
          'This invitation has been used already. If you accepted it, find the workspace under Workspaces. If not, ask whoever invited you to send a new invitation.',
      },
    });
    expect((await api.post('/api/v1/invitations/preview', { body: { token } })).status).toBe(410);
    const listed = await api.get<{ invitations: Invitation[] }>(`/api/v1/workspaces/${team.id}/invitations`, {
      headers: session(owner),
    });
    expect(listed.body.invitations).toEqual([]);
  });

  it('keeps only a hash of the token, and never shows the token in a list', async ({ api, server }) => {
    const { owner, team, token, invitation } = await invited(api);
    const listed = await api.get<{ invitations: Invitation[] }>(`/api/v1/workspaces/${team.id}/invitations`, {
      headers: session(owner),
    });
    expect(listed.status).toBe(200);
    expect(listed.body.invitations).toEqual([invitation]);
    expect(JSON.stringify(listed.body)).not.toContain(token);
    expect(JSON.stringify(invitation)).not.toContain(token.slice('sklt_invite_'.length));
    const rows = await server.db.db.selectFrom('workspace_invitations').selectAll().where('id', '=', invitation.id).execute();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(token.slice('sklt_invite_'.length));
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('lets only the invited address accept, and says who to sign in as', async ({ api }) => {
    const { email, token } = await invited(api);
    const someoneElse = await signUp(api);
    const refused = await accept(api, someoneElse, token);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: {
        code: 'FORBIDDEN',
        message: `This invitation is for ${email}, and you are signed in as ${someoneElse.email}. Sign out, then sign in or create an account with ${email}.`,
      },
    });
    // The refusal did not use the link up: the right person still can.
    expect((await accept(api, await signUp(api, email.toUpperCase()), token)).status).toBe(200);
  });

  it('stops a revoked link, and a resend replaces the link with a new one', async ({ api }) => {
    const { owner, team, email, invitation, token } = await invited(api);
    const resent = await api.post<Invitation>(`/api/v1/workspaces/${team.id}/invitations/${invitation.id}/resend`, {
      headers: session(owner),
    });
    expect(resent.status).toBe(200);
    const second = await tokenMailedTo(smtp.mails, email, 2);
    expect(second).not.toBe(token);
    const invitee = await signUp(api, email);
    expect((await accept(api, invitee, token)).status).toBe(404);

    const revoked = await api.delete(`/api/v1/workspaces/${team.id}/invitations/${invitation.id}`, { headers: session(owner) });
    expect(revoked.status).toBe(200);
    const refused = await accept(api, invitee, second);
    expect(refused.status).toBe(410);
    expect(refused.body).toEqual({
      error: {
        code: 'EXPIRED',
        message: 'This invitation was withdrawn by the workspace. Ask whoever invited you to send a new invitation.',
      },
    });
    const twice = await api.delete(`/api/v1/workspaces/${team.id}/invitations/${invitation.id}`, { headers: session(owner) });
    expect(twice.status).toBe(404);
  });

  it('refuses people outside, plain members, existing members, repeats and malformed input, in words', async ({ api }) => {
    const { owner, team, email, invitation } = await invited(api);
    const member = await signUp(api);
    expect(
      (
        await api.post(`/api/v1/workspaces/${team.id}/members`, {
          body: { email: member.email, role: 'member' },
          headers: session(owner),
        })
      ).status,
    ).toBe(201);

    const byMember = await invite(api, member, team.id, uniqueEmail());
    expect(byMember.status).toBe(403);
    expect(byMember.body).toEqual({
      error: {
        code: 'FORBIDDEN',
        message: 'Only an owner or an admin can invite people or manage invitations. Ask one of them.',
      },
    });
    expect((await api.get(`/api/v1/workspaces/${team.id}/invitations`, { headers: session(member) })).status).toBe(403);

    const existing = await invite(api, owner, team.id, member.email.toUpperCase());
    expect(existing.status).toBe(409);
    expect(existing.body).toEqual({
      error: { code: 'CONFLICT', message: `${member.email} is already a member of this workspace.` },
    });
    const repeat = await invite(api, owner, team.id, email);
    expect(repeat.status).toBe(409);
    expect(repeat.body).toEqual({
      error: {
        code: 'CONFLICT',
        message: `${email} has been invited already. Use Resend on their invitation to mail the link again.`,
      },
    });

    // An admin invites, but not an owner.
    const admin = await signUp(api);
    await api.post(`/api/v1/workspaces/${team.id}/members`, {
      body: { email: admin.email, role: 'admin' },
      headers: session(owner),
    });
    expect((await invite(api, admin, team.id, uniqueEmail(), 'admin')).status).toBe(201);
    const ownerByAdmin = await invite(api, admin, team.id, uniqueEmail(), 'owner');
    expect(ownerByAdmin.status).toBe(403);
    expect(ownerByAdmin.body).toEqual({
      error: { code: 'FORBIDDEN', message: 'Only an owner can invite an owner. Invite them as an admin, or ask an owner.' },
    });

    // Another workspace's invitation is not found, whoever asks, and an outsider learns nothing of the team.
    const other = await signUp(api);
    const otherTeam = await createTeam(api, other, 'Elsewhere');
    for (const path of [`/api/v1/workspaces/${otherTeam.id}/invitations/${invitation.id}`]) {
      expect((await api.delete(path, { headers: session(other) })).status).toBe(404);
      expect((await api.post(`${path}/resend`, { headers: session(other) })).status).toBe(404);
    }
    expect((await api.get(`/api/v1/workspaces/${team.id}/invitations`, { headers: session(other) })).status).toBe(404);
    expect((await invite(api, other, team.id, uniqueEmail())).status).toBe(404);
    expect(
      (await api.delete(`/api/v1/workspaces/${team.id}/invitations/${invitation.id}`, { headers: session(other) })).status,
    ).toBe(404);

    const personal = await invite(api, owner, owner.user.personalWorkspaceId, uniqueEmail());
    expect(personal.status).toBe(403);
    const badEmail = await invite(api, owner, team.id, 'not an address');
    expect(badEmail.status).toBe(400);
    expect(badEmail.body).toEqual({ error: { code: 'INVALID_INPUT', message: 'email must be an email address' } });
    expect((await invite(api, owner, team.id, uniqueEmail(), 'boss')).status).toBe(400);
    const unknown = await api.post('/api/v1/invitations/preview', { body: { token: 'sklt_invite_nothing' } });
    expect(unknown.status).toBe(404);
    // An API key acts in a workspace; it does not accept invitations for a person.
    const key = await createKey(api, member);
    expect(
      (await api.post('/api/v1/invitations/accept', { body: { token: 'x' }, headers: { 'x-api-key': key.key } })).status,
    ).toBe(403);
  });

  it('limits invitations an hour per workspace and per address', async ({ api, server }) => {
    const owner = await signUp(api);
    const team = await createTeam(api, owner, 'Busy');
    const email = uniqueEmail('popular');
    const first = await invite(api, owner, team.id, email);
    for (let i = 0; i < 2; i++) {
      const resent = await api.post(`/api/v1/workspaces/${team.id}/invitations/${first.body.id}/resend`, {
        headers: session(owner),
      });
      expect(resent.status).toBe(200);
    }
    const fourth = await api.post(`/api/v1/workspaces/${team.id}/invitations/${first.body.id}/resend`, {
      headers: session(owner),
    });
    expect(fourth.status).toBe(429);
    expect(JSON.stringify(fourth.body)).toContain(
      `${email} has been sent 3 invitations in the last hour. Wait a while before sending another.`,
    );
    for (let i = 0; i < 17; i++) expect((await invite(api, owner, team.id, uniqueEmail())).status).toBe(201);
    const over = await invite(api, owner, team.id, uniqueEmail());
    expect(over.status).toBe(429);
    expect(JSON.stringify(over.body)).toContain(
      'This workspace has sent 20 invitations in the last hour. Wait a while, then invite the rest.',
    );
    server.clock.advance(60 * 60 * 1000);
    expect((await invite(api, owner, team.id, uniqueEmail())).status).toBe(201);
  });

  // Last: it moves the server's clock a week on.
  it('stops a link after seven days, lists it as expired, and a resend makes it work again', async ({ api, server }) => {
    const { owner, team, email, invitation, token } = await invited(api);
    const invitee = await signUp(api, email);
    server.clock.advance(7 * 24 * 60 * 60 * 1000);
    const late = await accept(api, invitee, token);
    expect(late.status).toBe(410);
    expect(late.body).toEqual({
      error: { code: 'EXPIRED', message: 'This invitation has expired. Ask whoever invited you to send a new invitation.' },
    });
    const listed = await api.get<{ invitations: Invitation[] }>(`/api/v1/workspaces/${team.id}/invitations`, {
      headers: session(owner),
    });
    expect(listed.body.invitations).toEqual([expect.objectContaining({ id: invitation.id, status: 'expired' })]);
    await api.post(`/api/v1/workspaces/${team.id}/invitations/${invitation.id}/resend`, { headers: session(owner) });
    expect((await accept(api, invitee, await tokenMailedTo(smtp.mails, email, 2))).status).toBe(200);
  });
});

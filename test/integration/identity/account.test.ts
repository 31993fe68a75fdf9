import { describe, expect } from 'vitest';
import { makeResetLink, RESET_LINK_TTL_MS } from '../../../src/identity/account.js';
import { createKey, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';
import type { TestServer } from '../../helpers/server.js';

const it = withServer();

async function logIn(api: Client, who: TestUser, password = who.password) {
  return api.post<{ token: string }>('/api/v1/auth/login', { body: { email: who.email, password } });
}

const works = async (api: Client, token: string) => (await api.get('/api/v1/me', { headers: { 'x-auth-token': token } })).status;

const resetTokenOf = async (server: TestServer, email: string) => {
  const { url } = await makeResetLink({ db: server.db.db, clock: server.clock, config: server.config }, email);
  expect(url.startsWith(`${server.config.publicUrl}/app/reset-password#token=`)).toBe(true);
  return url.slice(url.indexOf('#token=') + 7);
};

describe('a person’s password and sessions', () => {
  it('changes the password with the current one, ending every other session', async ({ api }) => {
    const person = await signUp(api);
    const other = await logIn(api, person);
    const wrong = await api.put('/api/v1/auth/password', {
      body: { currentPassword: 'not it at all', newPassword: 'a brand new password' },
      headers: session(person),
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body).toEqual({ error: { code: 'FORBIDDEN', message: 'That is not your current password. Try again.' } });
    const short = await api.put('/api/v1/auth/password', {
      body: { currentPassword: person.password, newPassword: 'short' },
      headers: session(person),
    });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ error: { code: 'INVALID_INPUT', message: 'Choose a password of at least 8 characters.' } });

    const changed = await api.put('/api/v1/auth/password', {
      body: { currentPassword: person.password, newPassword: 'a brand new password' },
      headers: session(person),
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ success: true, endedSessions: 1 });
    expect(await works(api, person.token)).toBe(200);
    expect(await works(api, other.body.token)).toBe(401);
    expect((await logIn(api, person)).status).toBe(401);
    expect((await logIn(api, person, 'a brand new password')).status).toBe(200);
  });

  it('refuses a key the password and the sessions: only the person signed in manages them', async ({ api }) => {
    const person = await signUp(api);
    const key = await createKey(api, person);
    const headers = { 'x-api-key': key.key };
    const change = await api.put('/api/v1/auth/password', {
      body: { currentPassword: person.password, newPassword: 'a brand new password' },
      headers,
    });
    expect(change.status).toBe(403);
    expect((await api.get('/api/v1/auth/sessions', { headers })).status).toBe(403);
    expect((await logIn(api, person)).status).toBe(200);
  });

  it('lists the sessions, marks this one, and signs another out; someone else’s is not found', async ({ api }) => {
    const person = await signUp(api);
    const laptop = (await logIn(api, person)).body.token;
    const listed = await api.get<{ sessions: { id: string; current: boolean; workspaceId: string }[] }>('/api/v1/auth/sessions', {
      headers: session(person),
    });
    expect(listed.status).toBe(200);
    expect(listed.body.sessions).toHaveLength(2);
    expect(listed.body.sessions.filter((one) => one.current)).toHaveLength(1);
    expect(listed.body.sessions.every((one) => one.workspaceId === person.user.personalWorkspaceId)).toBe(true);
    const theLaptop = listed.body.sessions.find((one) => !one.current);

    const stranger = await signUp(api);
    const byStranger = await api.delete(`/api/v1/auth/sessions/${theLaptop?.id}`, { headers: session(stranger) });
    expect(byStranger.status).toBe(404);
    expect(await works(api, laptop)).toBe(200);

    const ended = await api.delete(`/api/v1/auth/sessions/${theLaptop?.id}`, { headers: session(person) });
    expect(ended.status).toBe(200);
    expect(await works(api, laptop)).toBe(401);
    expect((await api.delete(`/api/v1/auth/sessions/${theLaptop?.id}`, { headers: session(person) })).status).toBe(404);
  });

  it('resets a forgotten password through a one-time link that expires', async ({ api, server }) => {
    const person = await signUp(api);
    const token = await resetTokenOf(server, person.email.toUpperCase());
    // A refused password leaves the link usable.
    const short = await api.post('/api/v1/auth/password-reset', { body: { token, newPassword: 'short' } });
    expect(short.status).toBe(400);
    const reset = await api.post('/api/v1/auth/password-reset', { body: { token, newPassword: 'chosen after forgetting' } });
    expect(reset.status).toBe(200);
    expect(await works(api, person.token)).toBe(401);
    expect((await logIn(api, person, 'chosen after forgetting')).status).toBe(200);

    const again = await api.post('/api/v1/auth/password-reset', { body: { token, newPassword: 'and once more please' } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({
      error: { code: 'INVALID_INPUT', message: 'This reset link has been used or has expired. Ask for a new one.' },
    });

    const late = await resetTokenOf(server, person.email);
    server.clock.advance(RESET_LINK_TTL_MS + 1);
    expect(
      (await api.post('/api/v1/auth/password-reset', { body: { token: late, newPassword: 'too late for this' } })).status,
    ).toBe(400);
    const forged = await api.post('/api/v1/auth/password-reset', {
      body: { token: `sklt_reset_${'a'.repeat(40)}`, newPassword: 'a guess of a token' },
    });
    expect(forged.status).toBe(400);
    await expect(resetTokenOf(server, 'nobody@example.test')).rejects.toThrow('There is no account with the email');
  });

  it('lets a link be used once when two uses race (10 times)', async ({ api, server }) => {
    const person = await signUp(api);
    for (let round = 0; round < 10; round++) {
      const token = await resetTokenOf(server, person.email);
      const answers = await Promise.all(
        ['first racer password', 'second racer password'].map((newPassword) =>
          api.post('/api/v1/auth/password-reset', { body: { token, newPassword } }),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    }
  });
});

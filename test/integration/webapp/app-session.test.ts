import { describe, expect } from 'vitest';
import { createKey, signUp, uniqueEmail } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Reply } from '../../helpers/http.js';

const APP = { 'x-skillet-app': '1' };
const PASSWORD = 'correct horse battery';

/** The session cookie a reply set, as `name=value` for the next request's Cookie header. */
function sessionCookie(reply: Reply): string {
  const set = reply.headers.getSetCookie().find((cookie) => cookie.startsWith('skillet_session='));
  expect(set).toBeDefined();
  return (set as string).split(';')[0] as string;
}

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '10000' }).extend('signedUp', async ({ api }) => {
  const email = uniqueEmail('app');
  const reply = await api.post<{ user: { email: string } }>('/api/v1/app/signup', {
    body: { email, password: PASSWORD },
    headers: APP,
  });
  expect(reply.status).toBe(201);
  return { email, reply, cookie: sessionCookie(reply) };
});

describe("the web app's session cookie", () => {
  it('is httpOnly, SameSite=Strict and for the whole site; the token never appears in the body', async ({ signedUp }) => {
    const set = signedUp.reply.headers.getSetCookie().find((cookie) => cookie.startsWith('skillet_session=')) as string;
    expect(set).toMatch(/; HttpOnly/i);
    expect(set).toMatch(/; SameSite=Strict/i);
    expect(set).toMatch(/; Path=\//i);
    expect(set).not.toMatch(/; Secure/i); // http://127.0.0.1: a Secure cookie would never come back
    expect(signedUp.reply.text).not.toContain(signedUp.cookie.split('=')[1]);
    expect(signedUp.reply.body).toEqual({ user: expect.objectContaining({ email: signedUp.email }) });
  });

  it('signs requests in: reads without the app header, writes only with it (CSRF)', async ({ api, signedUp }) => {
    const me = await api.get<{ user: { email: string } }>('/api/v1/me', { headers: { cookie: signedUp.cookie } });
    expect(me.status).toBe(200);
    expect(me.body.user.email).toBe(signedUp.email);

    const forged = await api.post('/api/v1/keys', { body: { label: 'csrf' }, headers: { cookie: signedUp.cookie } });
    expect(forged.status).toBe(403);
    expect(forged.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.stringContaining('x-skillet-app') } });
    expect((await api.get<{ keys: unknown[] }>('/api/v1/keys', { headers: { cookie: signedUp.cookie } })).body.keys).toEqual([]);

    const made = await api.post('/api/v1/keys', {
      body: { label: 'from the app' },
      headers: { cookie: signedUp.cookie, ...APP },
    });
    expect(made.status).toBe(201);
  });

  it('gives way to an explicit credential: an x-api-key is judged as that key', async ({ api, signedUp }) => {
    const other = await signUp(api);
    const { key } = await createKey(api, other);
    const me = await api.get<{ user: { email: string } }>('/api/v1/me', {
      headers: { cookie: signedUp.cookie, 'x-api-key': key },
    });
    expect(me.body.user.email).toBe(other.email);
    const wrong = await api.get('/api/v1/me', { headers: { cookie: signedUp.cookie, 'x-api-key': 'sklt_live_nope' } });
    expect(wrong.status).toBe(401);
  });

  it('answers who is signed in without an error for nobody, a forged cookie or an ended session', async ({ api, signedUp }) => {
    expect((await api.get('/api/v1/app/session')).body).toEqual({ me: null, mailsResetLinks: false });
    expect((await api.get('/api/v1/app/session', { headers: { cookie: 'skillet_session=forged' } })).body).toEqual({
      me: null,
      mailsResetLinks: false,
    });
    const long = `skillet_session=${'a'.repeat(5000)}`;
    expect((await api.get('/api/v1/app/session', { headers: { cookie: long } })).body).toEqual({
      me: null,
      mailsResetLinks: false,
    });
    const mine = await api.get<{ me: { user: { email: string } } }>('/api/v1/app/session', {
      headers: { cookie: signedUp.cookie },
    });
    expect(mine.body.me.user.email).toBe(signedUp.email);
  });

  it('signs out: the session is revoked on the server and the cookie cleared', async ({ api, signedUp }) => {
    const refused = await api.post('/api/v1/app/logout', { headers: { cookie: signedUp.cookie } });
    expect(refused.status).toBe(403);
    expect((await api.get('/api/v1/me', { headers: { cookie: signedUp.cookie } })).status).toBe(200);

    const out = await api.post('/api/v1/app/logout', { headers: { cookie: signedUp.cookie, ...APP } });
    expect(out.status).toBe(200);
    expect(out.headers.getSetCookie().join()).toMatch(/skillet_session=;.*Expires=Thu, 01 Jan 1970/i);
    expect((await api.get('/api/v1/me', { headers: { cookie: signedUp.cookie } })).status).toBe(401);
    // Signing out twice, or with no cookie, still answers and clears.
    expect((await api.post('/api/v1/app/logout', { headers: { cookie: signedUp.cookie, ...APP } })).status).toBe(200);
    expect((await api.post('/api/v1/app/logout', { headers: APP })).status).toBe(200);
  });

  it('signs in with a password; a wrong one is a 401 in the envelope and sets nothing', async ({ api, signedUp }) => {
    const wrong = await api.post('/api/v1/app/login', { body: { email: signedUp.email, password: 'nope' }, headers: APP });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const right = await api.post('/api/v1/app/login', { body: { email: signedUp.email, password: PASSWORD }, headers: APP });
    expect(right.status).toBe(200);
    expect(sessionCookie(right)).not.toBe(signedUp.cookie);
  });

  it('refuses malformed sign-ins and sign-ups with 400, never 5xx', async ({ api }) => {
    for (const body of [undefined, {}, { email: 'x' }, { email: 3, password: [] }, { email: 'a@b.c', password: 'short' }]) {
      const login = await api.post('/api/v1/app/login', { body, headers: APP });
      const signup = await api.post('/api/v1/app/signup', { body, headers: APP });
      expect([login.status, signup.status].every((status) => status === 400 || status === 401)).toBe(true);
    }
    const raw = await api.post('/api/v1/app/login', { raw: '{"email":', headers: APP });
    expect(raw.status).toBe(400);
  });

  it('makes the cookie Secure when the service is reached over https', async () => {
    // Checked at the cookie writer's level: a second server with an https PUBLIC_URL.
    const { startServer } = await import('../../helpers/server.js');
    const server = await startServer({ PUBLIC_URL: 'https://skillet.example.test' });
    try {
      const reply = await fetch(`${server.url}/api/v1/app/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...APP },
        body: JSON.stringify({ email: uniqueEmail('secure'), password: PASSWORD }),
      });
      expect(reply.headers.getSetCookie().join()).toMatch(/; Secure/i);
    } finally {
      await server.close();
    }
  });
});

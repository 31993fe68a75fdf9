import { describe, expect } from 'vitest';
import { session, signUp, uniqueEmail } from '../../helpers/factories.js';
import { withApp } from '../../helpers/fixtures.js';

// The inject tier: nothing here needs a socket.
const it = withApp();

describe('POST /api/v1/auth/signup', () => {
  it('creates a user with a personal workspace and returns {token, user}', async ({ server, api }) => {
    const email = uniqueEmail();
    const reply = await api.post<{ token: string; user: Record<string, unknown> }>('/api/v1/auth/signup', {
      body: { email: `  ${email.toUpperCase()} `, password: 'correct horse' },
    });
    expect(reply.status).toBe(201);
    expect(reply.body.token).toMatch(/^sklt_sess_[0-9A-Za-z]{40}$/);
    expect(reply.body.user).toEqual({
      id: expect.any(String),
      email,
      isAdmin: false,
      personalWorkspaceId: expect.any(String),
      createdAt: server.clock.now().toISOString(),
    });
    expect(JSON.stringify(reply.body)).not.toContain('correct horse');
  });

  it('refuses a second account with the same email, whatever its case', async ({ api }) => {
    const email = uniqueEmail();
    await signUp(api, email);
    const reply = await api.post('/api/v1/auth/signup', { body: { email: email.toUpperCase(), password: 'another password' } });
    expect(reply.status).toBe(409);
    expect(reply.body).toEqual({ error: { code: 'CONFLICT', message: expect.any(String) } });
  });

  it.for([
    [{ password: 'long enough' }, 'missing email'],
    [{ email: uniqueEmail() }, 'missing password'],
    [{ email: 'not-an-email', password: 'long enough' }, 'malformed email'],
    [{ email: uniqueEmail(), password: 'short' }, 'short password'],
    [{ email: 42, password: 'long enough' }, 'email of the wrong type'],
  ])('answers 400 INVALID_INPUT for %j (%s)', async ([body, _why], { api }) => {
    const reply = await api.post('/api/v1/auth/signup', { body });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.any(String) } });
  });
});

describe('POST /api/v1/auth/login and logout', () => {
  it('signs in with the password and returns a new token', async ({ api }) => {
    const user = await signUp(api);
    const reply = await api.post<{ token: string; user: { id: string } }>('/api/v1/auth/login', {
      body: { email: user.email, password: user.password },
    });
    expect(reply.status).toBe(200);
    expect(reply.body.token).not.toBe(user.token);
    expect(reply.body.user.id).toBe(user.user.id);
  });

  it('answers the same 401 for a wrong password and an unknown email', async ({ api }) => {
    const user = await signUp(api);
    const wrong = await api.post('/api/v1/auth/login', { body: { email: user.email, password: 'wrong password' } });
    const unknown = await api.post('/api/v1/auth/login', { body: { email: uniqueEmail(), password: 'wrong password' } });
    for (const reply of [wrong, unknown]) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid email or password' } });
    }
  });

  it('logout revokes the token it was called with, and only that one', async ({ api }) => {
    const user = await signUp(api);
    const other = await api.post<{ token: string }>('/api/v1/auth/login', {
      body: { email: user.email, password: user.password },
    });
    expect((await api.post('/api/v1/auth/logout', { headers: session(user) })).body).toEqual({ success: true });
    const after = await api.get('/api/v1/me', { headers: session(user) });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid auth token' } });
    expect((await api.get('/api/v1/me', { headers: { 'x-auth-token': other.body.token } })).status).toBe(200);
  });

  it('logout needs an auth token: an API key gets 403', async ({ api }) => {
    const user = await signUp(api);
    const key = await api.post<{ key: string }>('/api/v1/keys', { body: { label: 'k' }, headers: session(user) });
    const reply = await api.post('/api/v1/auth/logout', { headers: { 'x-api-key': key.body.key } });
    expect(reply.status).toBe(403);
    expect(reply.body).toEqual({ error: { code: 'FORBIDDEN', message: expect.any(String) } });
  });
});

describe('GET /api/v1/me and the 401 messages', () => {
  it('describes the caller, their workspace and credential', async ({ api }) => {
    const user = await signUp(api);
    const reply = await api.get('/api/v1/me', { headers: session(user) });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      user: user.user,
      workspace: { id: user.user.personalWorkspaceId, name: null, personal: true, role: 'owner' },
      credential: { type: 'session', id: expect.any(String) },
      tier: 'paygmode',
    });
  });

  it('says "Missing auth token" when no credential is sent', async ({ api }) => {
    const reply = await api.get('/api/v1/me');
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Missing auth token' } });
  });

  it.for<[Record<string, string>, string]>([
    [{ 'x-auth-token': 'sklt_sess_nope' }, 'Invalid auth token'],
    [{ 'x-api-key': 'sklt_live_nope' }, 'Invalid API key'],
    [{ 'x-api-key': `sklt_live_${'a'.repeat(40)}` }, 'Invalid API key'],
    [{ authorization: 'Bearer some-oauth-token' }, 'Invalid auth token'],
  ])('says the right thing for %j', async ([headers, message], { api }) => {
    const reply = await api.get('/api/v1/me', { headers });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: { code: 'UNAUTHORIZED', message } });
  });

  it('treats an expired auth token as invalid', async ({ server, api }) => {
    const user = await signUp(api);
    server.clock.advance(31 * 86_400_000);
    const reply = await api.get('/api/v1/me', { headers: session(user) });
    expect(reply.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid auth token' } });
  });
});

describe('unknown routes', () => {
  it('answer a JSON 404 in the standard envelope, with rate-limit headers', async ({ api }) => {
    const reply = await api.get('/api/v1/nothing-here?secret=1');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({
      error: { code: 'NOT_FOUND', message: expect.stringContaining('There is nothing at this address') },
    });
    expect(reply.headers.get('x-ratelimit-limit')).toBe('100');
  });
});

describe('GET /openapi.json', () => {
  it('describes the routes from their schemas', async ({ api }) => {
    const reply = await api.get<{ openapi: string; paths: Record<string, unknown> }>('/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toMatch(/^3\./);
    for (const path of ['/api/v1/activate', '/api/v1/activate/poll', '/api/v1/auth/signup', '/api/v1/keys/{id}', '/api/v1/me']) {
      expect(Object.keys(reply.body.paths)).toContain(path);
    }
  });
});

import { describe, expect } from 'vitest';
import type { ApiKeyView } from '../../../src/identity/api-keys.js';
import { createKey, session, signUp } from '../../helpers/factories.js';
import { withApp } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

const it = withApp({ RATE_LIMIT_REST_PER_MINUTE: '10000' });

const listKeys = async (api: Client, token: string) =>
  (await api.get<{ keys: ApiKeyView[] }>('/api/v1/keys', { headers: { 'x-auth-token': token } })).body.keys;

describe('POST /api/v1/keys', () => {
  it('returns the plaintext once, with its preview, bound to the current workspace', async ({ api }) => {
    const person = await signUp(api);
    const reply = await api.post('/api/v1/keys', { body: { label: 'CI' }, headers: session(person) });
    expect(reply.status).toBe(201);
    const key = reply.body as { key: string; keyPreview: string };
    expect(reply.body).toEqual({
      id: expect.any(String),
      key: expect.stringMatching(/^sklt_live_[0-9A-Za-z]{40}$/),
      label: 'CI',
      keyPreview: `${key.key.slice(0, 14)}...${key.key.slice(-4)}`,
      workspaceId: person.user.personalWorkspaceId,
      createdAt: expect.any(String),
    });
    const listed = await listKeys(api, person.token);
    expect(JSON.stringify(listed)).not.toContain(key.key);
    expect(listed[0]?.keyPreview).toBe(key.keyPreview);
  });

  it('refuses an API key as the credential, and a missing label', async ({ api }) => {
    const person = await signUp(api);
    const key = await createKey(api, person);
    const byKey = await api.post('/api/v1/keys', { body: { label: 'x' }, headers: { 'x-api-key': key.key } });
    expect(byKey.status).toBe(403);
    expect((await api.get('/api/v1/keys', { headers: { 'x-api-key': key.key } })).status).toBe(403);
    expect((await api.post('/api/v1/keys', { body: {}, headers: session(person) })).status).toBe(400);
  });

  it('allows 10 live keys in paygmode, then 403; a revoked key frees a slot', async ({ api }) => {
    const person = await signUp(api);
    const keys = [];
    for (let i = 0; i < 10; i++) keys.push(await createKey(api, person, `k${i}`));
    const eleventh = await api.post('/api/v1/keys', { body: { label: 'one too many' }, headers: session(person) });
    expect(eleventh.status).toBe(403);
    expect(eleventh.body).toEqual({
      error: { code: 'FORBIDDEN', message: expect.stringContaining('the 10 keys Pay as you go allows') },
    });
    await api.delete(`/api/v1/keys/${keys[0]?.id}`, { headers: session(person) });
    expect((await api.post('/api/v1/keys', { body: { label: 'now fits' }, headers: session(person) })).status).toBe(201);
  });
});

describe('GET /api/v1/keys heartbeat', () => {
  it('is DORMANT before use, ACTIVE within 5 minutes of use, IDLE within 7 days, then DORMANT', async ({ server, api }) => {
    const person = await signUp(api);
    const key = await createKey(api, person);
    expect((await listKeys(api, person.token))[0]).toMatchObject({ heartbeat: 'DORMANT', lastUsedAt: null });

    await api.get('/api/v1/me', { headers: { 'x-api-key': key.key } });
    expect((await listKeys(api, person.token))[0]).toMatchObject({
      heartbeat: 'ACTIVE',
      lastUsedAt: server.clock.now().toISOString(),
    });

    server.clock.advance(5 * 60_000 + 1000);
    expect((await listKeys(api, person.token))[0]?.heartbeat).toBe('IDLE');
    server.clock.advance(7 * 86_400_000);
    const person2Token = (
      await api.post<{ token: string }>('/api/v1/auth/login', { body: { email: person.email, password: person.password } })
    ).body.token;
    expect((await listKeys(api, person2Token))[0]?.heartbeat).toBe('DORMANT');
  });
});

describe('DELETE /api/v1/keys/:id', () => {
  it('revokes at once: the key then gets 401 Invalid API key', async ({ api }) => {
    const person = await signUp(api);
    const key = await createKey(api, person);
    expect((await api.get('/api/v1/me', { headers: { 'x-api-key': key.key } })).status).toBe(200);
    expect((await api.delete(`/api/v1/keys/${key.id}`, { headers: session(person) })).body).toEqual({ success: true });
    const after = await api.get('/api/v1/me', { headers: { 'x-api-key': key.key } });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid API key' } });
    expect(await listKeys(api, person.token)).toEqual([]);
  });

  it("answers 404 for someone else's key, an unknown id, and a key already revoked", async ({ api }) => {
    const person = await signUp(api);
    const other = await signUp(api);
    const theirs = await createKey(api, other);
    expect((await api.delete(`/api/v1/keys/${theirs.id}`, { headers: session(person) })).status).toBe(404);
    expect((await api.delete('/api/v1/keys/unknown', { headers: session(person) })).status).toBe(404);
    const mine = await createKey(api, person);
    await api.delete(`/api/v1/keys/${mine.id}`, { headers: session(person) });
    expect((await api.delete(`/api/v1/keys/${mine.id}`, { headers: session(person) })).status).toBe(404);
    expect((await api.get('/api/v1/me', { headers: { 'x-api-key': theirs.key } })).status).toBe(200);
  });

  it("lets a key revoke itself (a CLI logging out), and no other key, not even its owner's next one", async ({ api }) => {
    const person = await signUp(api);
    const [first, second] = [await createKey(api, person), await createKey(api, person)];
    const sideways = await api.delete(`/api/v1/keys/${second.id}`, { headers: { 'x-api-key': first.key } });
    expect([sideways.status, sideways.body]).toEqual([403, { error: { code: 'FORBIDDEN', message: expect.any(String) } }]);
    expect((await api.get('/api/v1/me', { headers: { 'x-api-key': second.key } })).status).toBe(200);
    const itself = await api.delete(`/api/v1/keys/${first.id}`, { headers: { 'x-api-key': first.key } });
    expect([itself.status, itself.body]).toEqual([200, { success: true }]);
    expect((await api.get('/api/v1/me', { headers: { 'x-api-key': first.key } })).status).toBe(401);
    expect((await listKeys(api, person.token)).map((key) => key.id)).toEqual([second.id]);
  });
});

describe('the credential cache', () => {
  it('honours a revocation made elsewhere (another node) within its TTL', async ({ server, api }) => {
    const person = await signUp(api);
    const key = await createKey(api, person);
    expect((await api.get('/api/v1/me', { headers: { 'x-api-key': key.key } })).status).toBe(200);
    // Written straight to the database, as another node of a cluster would.
    await server.db.db
      .updateTable('api_keys')
      .set({ revoked_at: server.clock.now().toISOString() })
      .where('id', '=', key.id)
      .execute();
    expect((await api.get('/api/v1/me', { headers: { 'x-api-key': key.key } })).status).toBe(200);
    server.clock.advance(server.config.credentialCacheSeconds * 1000);
    expect((await api.get('/api/v1/me', { headers: { 'x-api-key': key.key } })).status).toBe(401);
  });
});

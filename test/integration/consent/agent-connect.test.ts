import { describe, expect } from 'vitest';
import { createKey, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '10000' }).extend('person', { scope: 'file' }, ({ api }) => signUp(api));

interface Created {
  requestId: string;
  status: string;
  approveUrl: string;
  expiresAt: string;
}

type Api = Parameters<typeof signUp>[0];

const keyHeader = (key: string) => ({ 'x-api-key': key });

async function ask(api: Api, key: string, scopes: string[], label?: string): Promise<Created> {
  const reply = await api.post<Created>('/api/v1/agents/connect', { body: { scopes, label }, headers: keyHeader(key) });
  expect(reply.status).toBe(202);
  return reply.body;
}

function decide(api: Api, user: TestUser, requestId: string, decision: 'approve' | 'deny', extra: Record<string, string> = {}) {
  return api.post<Record<string, unknown>>(`/api/v1/agents/connect/${requestId}/${decision}`, { headers: session(user, extra) });
}

const newExecution = (api: Api, key: string) =>
  api.post('/api/v1/executions', { body: { skill_slug: 'ticker', input: '1 1' }, headers: keyHeader(key) });

describe('scoped consent over the API', () => {
  it('creates a pending request, the owner approves it, and the key is held to read', async ({ server, api, person }) => {
    const { key } = await createKey(api, person, 'cursor');
    expect((await newExecution(api, key)).status).toBe(200);

    const created = await ask(api, key, ['read'], 'Cursor agent');
    expect(created).toEqual({
      requestId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending',
      approveUrl: `${server.config.publicUrl}/agents/connect/${created.requestId}`,
      expiresAt: new Date(server.clock.nowMs() + 600_000).toISOString(),
    });
    const asKey = await api.get(`/api/v1/agents/connect/${created.requestId}`, { headers: keyHeader(key) });
    expect(asKey.body).toMatchObject({ status: 'pending', scopes: ['read'], label: 'Cursor agent', keyLabel: 'cursor' });
    const asPerson = await api.get(`/api/v1/agents/connect/${created.requestId}`, { headers: session(person) });
    expect(asPerson.body).toEqual(asKey.body);

    const approved = await decide(api, person, created.requestId, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', scopes: ['read'] });

    // Promptly: the key's cached credential was dropped by the approval.
    expect((await api.get('/api/v1/executions', { headers: keyHeader(key) })).status).toBe(200);
    const refused = await newExecution(api, key);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: { code: 'FORBIDDEN', message: 'This API key does not have the write scope' } });
    expect((await api.get(`/api/v1/agents/connect/${created.requestId}`, { headers: keyHeader(key) })).body).toMatchObject({
      status: 'approved',
    });
    // The person's own session is not narrowed.
    const mine = await api.post('/api/v1/executions', { body: { skill_slug: 'ticker', input: '1 1' }, headers: session(person) });
    expect(mine.status).toBe(200);
  });

  it('a narrowed key may narrow further but never widen', async ({ api, person }) => {
    const { key } = await createKey(api, person, 'narrow');
    await decide(api, person, (await ask(api, key, ['write'])).requestId, 'approve');
    expect((await newExecution(api, key)).status).toBe(200);
    const wider = await api.post('/api/v1/agents/connect', { body: { scopes: ['admin'] }, headers: keyHeader(key) });
    expect(wider.status).toBe(403);
    expect(wider.body).toMatchObject({ error: { code: 'FORBIDDEN', message: expect.stringContaining('admin') } });
    await decide(api, person, (await ask(api, key, ['read'])).requestId, 'approve');
    expect((await newExecution(api, key)).status).toBe(403);
    // A read-only key can still ask (asking only ever takes access away).
    await ask(api, key, ['read']);
  });

  it('a denied request changes nothing, and a decided one cannot be decided again', async ({ api, person }) => {
    const { key } = await createKey(api, person, 'denied');
    const { requestId } = await ask(api, key, ['read']);
    const denied = await decide(api, person, requestId, 'deny');
    expect(denied.status).toBe(200);
    expect(denied.body).toMatchObject({ status: 'denied' });
    expect((await newExecution(api, key)).status).toBe(200);
    for (const again of ['approve', 'deny'] as const) {
      const reply = await decide(api, person, requestId, again);
      expect(reply.status).toBe(409);
      expect(reply.body).toEqual({ error: { code: 'CONFLICT', message: 'This connect request was already denied' } });
    }
    // Two decisions at once: exactly one applies.
    const other = await ask(api, key, ['read']);
    const raced = await Promise.all([
      decide(api, person, other.requestId, 'approve'),
      decide(api, person, other.requestId, 'deny'),
      decide(api, person, other.requestId, 'approve'),
    ]);
    expect(raced.map((reply) => reply.status).sort()).toEqual([200, 409, 409]);
  });

  it('expires after 10 minutes by the clock: status expired, approval 410, the key untouched', async ({
    server,
    api,
    person,
  }) => {
    const { key } = await createKey(api, person, 'slow');
    const { requestId } = await ask(api, key, ['read']);
    server.clock.advance(599_000);
    expect((await api.get(`/api/v1/agents/connect/${requestId}`, { headers: keyHeader(key) })).body).toMatchObject({
      status: 'pending',
    });
    server.clock.advance(1_000);
    expect((await api.get(`/api/v1/agents/connect/${requestId}`, { headers: keyHeader(key) })).body).toMatchObject({
      status: 'expired',
    });
    const late = await decide(api, person, requestId, 'approve');
    expect(late.status).toBe(410);
    expect(late.body).toEqual({ error: { code: 'EXPIRED', message: 'This connect request has expired' } });
    expect((await newExecution(api, key)).status).toBe(200);
  });
});

describe('scoped consent refusals', () => {
  it('takes a Bearer API key as well as x-api-key', async ({ api, person }) => {
    const { key } = await createKey(api, person, 'bearer');
    const reply = await api.post('/api/v1/agents/connect', {
      body: { scopes: ['read'] },
      headers: { authorization: `Bearer ${key}` },
    });
    expect(reply.status).toBe(202);
  });

  it('refuses bad bodies with 400 INVALID_INPUT, never a 500', async ({ api, person }) => {
    const { key } = await createKey(api, person, 'bodies');
    const bodies: unknown[] = [
      {},
      { scopes: [] },
      { scopes: ['root'] },
      { scopes: 'read' },
      { scopes: ['read', 'read'] },
      { scopes: ['read'], label: '' },
      { scopes: ['read'], label: 'x'.repeat(101) },
      { scopes: ['read'], label: 7 },
      { scopes: ['read'], extra: true },
      [],
      'read',
      null,
    ];
    for (const body of bodies) {
      const reply = await api.post('/api/v1/agents/connect', { body, headers: keyHeader(key) });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    }
    const notJson = await api.post('/api/v1/agents/connect', {
      raw: '{"scopes": [',
      headers: { ...keyHeader(key), 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
  });

  it('refuses a session token or no credential on create', async ({ api, person }) => {
    const bySession = await api.post('/api/v1/agents/connect', { body: { scopes: ['read'] }, headers: session(person) });
    expect(bySession.status).toBe(403);
    expect(bySession.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect((await api.post('/api/v1/agents/connect', { body: { scopes: ['read'] } })).status).toBe(401);
  });

  it("hides another person's request and another key's, and the key cannot approve itself", async ({ api, person }) => {
    const { key } = await createKey(api, person, 'mine');
    const { requestId } = await ask(api, key, ['read']);
    const stranger = await signUp(api);
    const { key: strangerKey } = await createKey(api, stranger, 'theirs');
    const { key: siblingKey } = await createKey(api, person, 'sibling');
    for (const headers of [session(stranger), keyHeader(strangerKey), keyHeader(siblingKey)]) {
      const reply = await api.get(`/api/v1/agents/connect/${requestId}`, { headers });
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Connect request not found' } });
    }
    expect((await decide(api, stranger, requestId, 'approve')).status).toBe(404);
    expect((await decide(api, stranger, requestId, 'deny')).status).toBe(404);
    const selfApproval = await api.post(`/api/v1/agents/connect/${requestId}/approve`, { headers: keyHeader(key) });
    expect(selfApproval.status).toBe(403);
    for (const id of ['nope', '00000000-0000-0000-0000-000000000000']) {
      expect((await decide(api, person, id, 'approve')).status).toBe(404);
    }
    expect((await api.get(`/api/v1/agents/connect/${requestId}`, { headers: session(person) })).body).toMatchObject({
      status: 'pending',
    });
  });

  it("hides a team key's request from the owner's personal workspace until they name the team", async ({ api, person }) => {
    const team = await api.post<{ id: string }>('/api/v1/workspaces', { body: { name: 'Crew' }, headers: session(person) });
    const { key } = await createKey(api, person, 'team key', { 'x-workspace-id': team.body.id });
    const { requestId } = await ask(api, key, ['read']);
    expect((await decide(api, person, requestId, 'approve')).status).toBe(404);
    expect((await decide(api, person, requestId, 'approve', { 'x-workspace-id': team.body.id })).status).toBe(200);
  });
});

describe('the OpenAPI document', () => {
  it('documents the API routes from their schemas and hides the page', async ({ api }) => {
    const document = (
      await api.get<{ paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown }>> }>(
        '/openapi.json',
      )
    ).body;
    expect(Object.keys(document.paths['/api/v1/agents/connect']?.post?.responses ?? {})).toContain('202');
    expect(document.paths['/api/v1/agents/connect/{requestId}']?.get).toBeDefined();
    expect(document.paths['/api/v1/agents/connect/{requestId}/approve']?.post?.security).toEqual([{ authToken: [] }]);
    expect(document.paths['/api/v1/agents/connect/{requestId}/deny']?.post?.security).toEqual([{ authToken: [] }]);
    expect(document.paths['/agents/connect/{requestId}']).toBeUndefined();
  });
});

import { describe, expect } from 'vitest';
import { createKey, createTeam, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withApp } from '../../helpers/fixtures.js';
import type { Client } from '../../helpers/http.js';

// Private addresses are refused here (the shipped default); delivery is webhooks.test.ts's.
const it = withApp({ RATE_LIMIT_REST_PER_MINUTE: '100000' });

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  secret?: string;
}

const create = (api: Client, headers: Record<string, string>, body: unknown) =>
  api.post<Endpoint>('/api/v1/webhooks', { body, headers });

/** An endpoint on a public address (documentation range hosts are refused, so a literal public one). */
async function endpointOf(api: Client, user: TestUser) {
  const reply = await create(api, session(user), { url: 'https://93.184.215.14/hooks', description: 'mine' });
  expect(reply.status).toBe(201);
  return reply.body;
}

function routesFor(endpointId: string, deliveryId = '00000000-0000-4000-8000-000000000000') {
  return [
    ['GET', `/api/v1/webhooks/${endpointId}`],
    ['PATCH', `/api/v1/webhooks/${endpointId}`, { enabled: false }],
    ['DELETE', `/api/v1/webhooks/${endpointId}`],
    ['POST', `/api/v1/webhooks/${endpointId}/secret`],
    ['POST', `/api/v1/webhooks/${endpointId}/test`],
    ['GET', `/api/v1/webhooks/${endpointId}/deliveries`],
    ['GET', `/api/v1/webhooks/${endpointId}/deliveries/${deliveryId}`],
    ['POST', `/api/v1/webhooks/${endpointId}/deliveries/${deliveryId}/redeliver`],
  ] as const;
}

function send(api: Client, [method, path, body]: readonly [string, string, unknown?], headers: Record<string, string>) {
  const options = { headers, ...(body === undefined ? {} : { body }) };
  if (method === 'GET') return api.get(path, options);
  if (method === 'PATCH') return api.patch(path, options);
  if (method === 'DELETE') return api.delete(path, options);
  return api.post(path, options);
}

describe('webhook endpoints: who may manage them', () => {
  it('answers 404 for another workspace’s endpoint on every route, and changes nothing', async ({ api }) => {
    const owner = await signUp(api);
    const stranger = await signUp(api);
    const endpoint = await endpointOf(api, owner);
    for (const route of routesFor(endpoint.id)) {
      const reply = await send(api, route, session(stranger));
      expect(reply.status, route.join(' ')).toBe(404);
      expect(reply.body).toMatchObject({ error: { code: 'NOT_FOUND' } });
      expect(reply.text).not.toContain(endpoint.url);
    }
    const still = await api.get<Endpoint>(`/api/v1/webhooks/${endpoint.id}`, { headers: session(owner) });
    expect(still.body).toMatchObject({ id: endpoint.id, enabled: true });
    expect((await api.get<{ webhooks: Endpoint[] }>('/api/v1/webhooks', { headers: session(stranger) })).body.webhooks).toEqual(
      [],
    );
  });

  it('lets a workspace’s API key manage its endpoints, but not another workspace’s', async ({ api }) => {
    const owner = await signUp(api);
    const key = await createKey(api, owner);
    const made = await create(api, { 'x-api-key': key.key }, { url: 'https://93.184.215.14/ci', events: ['execution.failed'] });
    expect(made.status).toBe(201);
    expect(made.body.events).toEqual(['execution.failed']);
    const other = await endpointOf(api, await signUp(api));
    expect((await api.get(`/api/v1/webhooks/${other.id}`, { headers: { 'x-api-key': key.key } })).status).toBe(404);
  });

  it('keeps members of a team out (403), while its owner and admins manage them', async ({ api }) => {
    const owner = await signUp(api);
    const member = await signUp(api);
    const admin = await signUp(api);
    const team = await createTeam(api, owner);
    for (const [person, role] of [
      [member, 'member'],
      [admin, 'admin'],
    ] as const) {
      const added = await api.post(`/api/v1/workspaces/${team.id}/members`, {
        body: { email: person.email, role },
        headers: session(owner),
      });
      expect(added.status).toBe(201);
    }
    const inTeam = (person: TestUser) => session(person, { 'x-workspace-id': team.id });
    const made = await create(api, inTeam(admin), { url: 'https://93.184.215.14/team' });
    expect(made.status).toBe(201);
    const refused = await create(api, inTeam(member), { url: 'https://93.184.215.14/team' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: { code: 'FORBIDDEN', message: 'Managing webhooks needs the owner or admin role' } });
    expect((await api.get('/api/v1/webhooks', { headers: inTeam(member) })).status).toBe(403);
    for (const route of routesFor(made.body.id))
      expect((await send(api, route, inTeam(member))).status, route.join(' ')).toBe(403);
    const listed = await api.get<{ webhooks: Endpoint[] }>('/api/v1/webhooks', { headers: inTeam(owner) });
    expect(listed.body.webhooks.map((each) => each.id)).toEqual([made.body.id]);
    // The team's endpoint is not the owner's personal workspace's.
    expect((await api.get<{ webhooks: Endpoint[] }>('/api/v1/webhooks', { headers: session(owner) })).body.webhooks).toEqual([]);
  });

  it('shows the secret only when it is made or rotated', async ({ api }) => {
    const owner = await signUp(api);
    const endpoint = await endpointOf(api, owner);
    expect(endpoint.secret).toMatch(/^whsec_/);
    const listed = await api.get('/api/v1/webhooks', { headers: session(owner) });
    const one = await api.get(`/api/v1/webhooks/${endpoint.id}`, { headers: session(owner) });
    const changed = await api.patch(`/api/v1/webhooks/${endpoint.id}`, { body: { description: 'x' }, headers: session(owner) });
    for (const reply of [listed, one, changed]) {
      expect(reply.status).toBe(200);
      expect(reply.text).not.toContain('whsec_');
    }
  });

  it('allows at most 20 endpoints a workspace', async ({ api }) => {
    const owner = await signUp(api);
    for (let i = 0; i < 20; i++)
      expect((await create(api, session(owner), { url: `https://93.184.215.14/${i}` })).status).toBe(201);
    const over = await create(api, session(owner), { url: 'https://93.184.215.14/21' });
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
  });
});

describe('webhook endpoints: where they may point', () => {
  it.for([
    'http://127.0.0.1:8080/hooks',
    'http://localhost/hooks',
    'http://[::1]/hooks',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://017700000001/',
    'http://224.0.0.1/',
  ])('refuses %s, which does not lead to a public address', async (url, { api }) => {
    const owner = await signUp(api);
    const reply = await create(api, session(owner), { url });
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: { code: 'INVALID_INPUT' } });
    expect(reply.text).toMatch(/"message":"url must lead to a public address/);
  });

  it('refuses the same on a change of URL', async ({ api }) => {
    const owner = await signUp(api);
    const endpoint = await endpointOf(api, owner);
    const reply = await api.patch(`/api/v1/webhooks/${endpoint.id}`, {
      body: { url: 'http://127.0.0.1/' },
      headers: session(owner),
    });
    expect(reply.status).toBe(400);
    expect((await api.get<Endpoint>(`/api/v1/webhooks/${endpoint.id}`, { headers: session(owner) })).body.url).toBe(endpoint.url);
  });

  it.for([
    [{ url: 'ftp://93.184.215.14/' }, 'url must be an absolute http or https URL'],
    [{ url: 'not a url' }, 'url must be an absolute http or https URL'],
    [{ url: 'https://user:secret@93.184.215.14/' }, 'url must not carry a user name or password'],
  ] as const)('refuses %j', async ([body, message], { api }) => {
    const owner = await signUp(api);
    const reply = await create(api, session(owner), body);
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'INVALID_INPUT', message } });
  });

  it.for([
    ['no url', {}],
    ['an empty url', { url: '' }],
    ['no events', { url: 'https://93.184.215.14/', events: [] }],
    ['an unknown event', { url: 'https://93.184.215.14/', events: ['execution.started'] }],
    ['an unknown field', { url: 'https://93.184.215.14/', extra: true }],
    ['a url over 2000 characters', { url: `https://93.184.215.14/${'a'.repeat(2000)}` }],
    ['a description over 200 characters', { url: 'https://93.184.215.14/', description: 'd'.repeat(201) }],
  ] as const)('answers a body with %s with 400 in the envelope', async ([, body], { api }) => {
    const owner = await signUp(api);
    const reply = await create(api, session(owner), body);
    expect(reply.status).toBe(400);
    expect(reply.body).toMatchObject({ error: { code: 'INVALID_INPUT' } });
  });

  it('answers bad paging and an empty change with 400', async ({ api }) => {
    const owner = await signUp(api);
    const endpoint = await endpointOf(api, owner);
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'status=lost', 'offset=-1']) {
      const reply = await api.get(`/api/v1/webhooks/${endpoint.id}/deliveries?${query}`, { headers: session(owner) });
      expect(reply.status, query).toBe(400);
    }
    expect((await api.patch(`/api/v1/webhooks/${endpoint.id}`, { body: {}, headers: session(owner) })).status).toBe(400);
    expect((await api.get('/api/v1/webhooks')).status).toBe(401);
  });
});

import { describe, expect } from 'vitest';
import { createKey, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { tamper } from '../../helpers/http.js';
import { postForm, ticketIn } from '../../helpers/pages.js';
import type { TestServer } from '../../helpers/server.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '10000' }).extend('person', { scope: 'file' }, ({ api }) => signUp(api));

type Api = Parameters<typeof signUp>[0];

/** A key of the person's that has asked to be narrowed, and the page path of its request. */
async function pendingRequest(api: Api, person: TestUser, scopes: string[], label = 'Agent <b>&</b>', keyLabel = 'my key') {
  const { key } = await createKey(api, person, keyLabel);
  const reply = await api.post<{ requestId: string; approveUrl: string }>('/api/v1/agents/connect', {
    body: { scopes, label },
    headers: { 'x-api-key': key },
  });
  expect(reply.status).toBe(202);
  return { key, requestId: reply.body.requestId, path: new URL(reply.body.approveUrl).pathname };
}

const signIn = (server: TestServer, path: string, user: TestUser) =>
  postForm(server, `${path}/review`, { email: user.email, password: user.password });

describe('the scoped-consent page at approveUrl', () => {
  it('signs in, shows the key, the agent (escaped) and the scopes, and approves', async ({ server, api, person }) => {
    const { key, path } = await pendingRequest(api, person, ['read'], '<script>x</script>', 'Laptop "key"');
    const first = await fetch(server.url + path);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(await first.text()).toContain('Sign in');

    const review = await signIn(server, path, person);
    expect(review.status).toBe(200);
    expect(review.html).toContain('Laptop &quot;key&quot;');
    expect(review.html).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect(review.html).not.toContain('<script>');
    expect(review.html).toContain('<code>read</code>');
    expect(review.html).toMatch(/value="approve">Approve</);
    expect(review.html).toMatch(/value="deny">Deny</);

    const done = await postForm(server, `${path}/decision`, { ticket: ticketIn(review.html), decision: 'approve' });
    expect(done.status).toBe(200);
    expect(done.html).toContain('Key narrowed');
    const write = await api.post('/api/v1/executions', {
      body: { skill_slug: 'ticker', input: '1 1' },
      headers: { 'x-api-key': key },
    });
    expect(write.status).toBe(403);
    expect((await api.get('/api/v1/executions', { headers: { 'x-api-key': key } })).status).toBe(200);
  });

  it('denies, and the key keeps its access; a second decision is refused', async ({ server, api, person }) => {
    const { key, path } = await pendingRequest(api, person, ['read']);
    const ticket = ticketIn((await signIn(server, path, person)).html);
    const denied = await postForm(server, `${path}/decision`, { ticket, decision: 'deny' });
    expect(denied.html).toContain('Request denied');
    const write = await api.post('/api/v1/executions', {
      body: { skill_slug: 'ticker', input: '1 1' },
      headers: { 'x-api-key': key },
    });
    expect(write.status).toBe(200);
    const again = await postForm(server, `${path}/decision`, { ticket, decision: 'approve' });
    expect(again.status).toBe(409);
    expect((await signIn(server, path, person)).status).toBe(409);
  });

  it('refuses a wrong password, another person, a tampered, foreign or expired ticket', async ({ server, api, person }) => {
    const { path, requestId } = await pendingRequest(api, person, ['read']);
    const wrong = await postForm(server, `${path}/review`, { email: person.email, password: 'nope-nope' });
    expect(wrong.status).toBe(401);
    const stranger = await signUp(api);
    const foreign = await signIn(server, path, stranger);
    expect(foreign.status).toBe(404);
    expect(foreign.html).not.toContain('name="ticket"');

    const ticket = ticketIn((await signIn(server, path, person)).html);
    expect((await postForm(server, `${path}/decision`, { ticket: tamper(ticket), decision: 'approve' })).status).toBe(400);
    const other = await pendingRequest(api, person, ['read']);
    expect((await postForm(server, `${other.path}/decision`, { ticket, decision: 'approve' })).status).toBe(400);
    const bodies: Record<string, string>[] = [
      {},
      { ticket },
      { ticket, decision: 'maybe' },
      { ticket: 'x'.repeat(5000), decision: 'approve' },
    ];
    for (const body of bodies) {
      const reply = await postForm(server, `${path}/decision`, body);
      expect(reply.status).toBeLessThan(500);
    }
    server.clock.advance(600_000);
    expect((await postForm(server, `${path}/decision`, { ticket, decision: 'approve' })).status).toBe(400);
    expect((await signIn(server, path, person)).status).toBe(410);
    const status = await api.get(`/api/v1/agents/connect/${requestId}`, { headers: { 'x-auth-token': person.token } });
    expect(status.body).toMatchObject({ status: 'expired' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam, signUp, startActivation, type TestUser } from '../helpers/factories.js';
import { type Client, client, tamper } from '../helpers/http.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let api: Client;
let person: TestUser;

beforeAll(async () => {
  server = await startServer({ RATE_LIMIT_REST_PER_MINUTE: '10000' });
  api = client(server.url);
  person = await signUp(api);
});
afterAll(() => server.close());

async function postForm(path: string, fields: Record<string, string>) {
  const response = await fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

function ticketIn(html: string): string {
  const match = /name="ticket" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('no ticket on the page');
  return match[1];
}

const poll = (deviceCode: string) =>
  api.post<{ status: string; workspace?: { id: string } }>('/api/v1/activate/poll', { body: { device_code: deviceCode } });

describe('GET /activate', () => {
  it('serves the sign-in form with the code pre-filled and strict headers', async () => {
    const created = await startActivation(server, api);
    const response = await fetch(`${server.url}/activate?code=${created.user_code}`);
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(html).toContain(`value="${created.user_code}"`);
    expect(html).toContain('type="password"');
    expect((await fetch(`${server.url}/activate/style.css`)).headers.get('content-type')).toContain('text/css');
  });
});

describe('sign in, review, decide', () => {
  it('shows the code, client, user agent, IP and time left, then approves into the chosen workspace', async () => {
    const team = await createTeam(api, person, 'Design');
    const created = await startActivation(server, api, {
      'x-client-label': 'Zed <script>alert(1)</script>',
      'user-agent': 'zed/0.150',
    });
    server.clock.advance(60_000);
    const review = await postForm('/activate/review', {
      code: created.user_code.toLowerCase(),
      email: person.email,
      password: person.password,
    });
    expect(review.status).toBe(200);
    expect(review.html).toContain(created.user_code);
    expect(review.html).toContain('Zed &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(review.html).not.toContain('<script>alert(1)');
    expect(review.html).toContain('zed/0.150');
    expect(review.html).toContain('127.0.0.1');
    expect(review.html).toMatch(/9 min 0 s|8 min 59 s/);
    expect(review.html).toContain('Design');

    const decided = await postForm('/activate/decision', {
      ticket: ticketIn(review.html),
      workspace: team.id,
      decision: 'approve',
    });
    expect(decided.status).toBe(200);
    expect(decided.html).toContain('Device approved');
    const claimed = await poll(created.device_code);
    expect(claimed.body).toMatchObject({ status: 'approved', workspace: { id: team.id } });
  });

  it('denies', async () => {
    const created = await startActivation(server, api);
    const review = await postForm('/activate/review', {
      code: created.user_code,
      email: person.email,
      password: person.password,
    });
    const decided = await postForm('/activate/decision', {
      ticket: ticketIn(review.html),
      workspace: person.user.personalWorkspaceId,
      decision: 'deny',
    });
    expect(decided.html).toContain('Device denied');
    expect((await poll(created.device_code)).body).toEqual({ status: 'denied' });
  });

  it('re-shows the form with a message for a wrong password or an unknown code', async () => {
    const created = await startActivation(server, api);
    const wrong = await postForm('/activate/review', { code: created.user_code, email: person.email, password: 'not it' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('Invalid email or password');
    expect(wrong.html).not.toContain('not it');
    const unknown = await postForm('/activate/review', { code: 'ZZZZ-ZZZZ', email: person.email, password: person.password });
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('No activation with this code');
  });

  it('refuses a tampered or expired ticket, and a workspace the person is not in', async () => {
    const created = await startActivation(server, api);
    const review = await postForm('/activate/review', {
      code: created.user_code,
      email: person.email,
      password: person.password,
    });
    const ticket = ticketIn(review.html);
    const tampered = await postForm('/activate/decision', {
      ticket: tamper(ticket),
      workspace: person.user.personalWorkspaceId,
      decision: 'approve',
    });
    expect(tampered.status).toBe(400);

    const stranger = await signUp(api);
    const theirs = await createTeam(api, stranger);
    const foreign = await postForm('/activate/decision', { ticket, workspace: theirs.id, decision: 'approve' });
    expect(foreign.status).toBe(403);

    server.clock.advance(600_000);
    const late = await postForm('/activate/decision', {
      ticket,
      workspace: person.user.personalWorkspaceId,
      decision: 'approve',
    });
    expect(late.status).toBe(400);
    expect((await poll(created.device_code)).body).toEqual({ status: 'expired' });
  });

  it('tells the person when the code was already decided', async () => {
    const created = await startActivation(server, api);
    await api.post('/api/v1/activate/deny', { body: { code: created.user_code }, headers: { 'x-auth-token': person.token } });
    const review = await postForm('/activate/review', {
      code: created.user_code,
      email: person.email,
      password: person.password,
    });
    expect(review.status).toBe(409);
    expect(review.html).toContain('already denied');
  });
});

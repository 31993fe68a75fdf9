import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect } from 'vitest';
import type { Activation } from '../../../src/sdk/types.js';
import { createTeam, session, signUp, startActivation } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { tamper } from '../../helpers/http.js';
import { postForm, ticketIn } from '../../helpers/pages.js';
import type { TestServer } from '../../helpers/server.js';

/**
 * Starts an activation whose `x-client-label` header is the UTF-8 of the text, written as
 * raw bytes: fetch refuses such a header, and Node's client would encode it once more.
 */
async function activateWithUtf8Header(server: TestServer, label: string): Promise<Activation> {
  server.clock.advance(server.config.rateLimits.activationCreateIntervalMs);
  const { hostname, port } = new URL(server.url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  const head = `POST /api/v1/activate HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\nx-client-label: `;
  // Written, not ended: the server closes the connection once it has answered.
  socket.write(Buffer.concat([Buffer.from(head), Buffer.from(label), Buffer.from('\r\n\r\n{}')]));
  const chunks: Buffer[] = [];
  for await (const chunk of socket) chunks.push(chunk as Buffer);
  const response = Buffer.concat(chunks).toString('utf8');
  expect(response).toMatch(/^HTTP\/1\.1 200 /);
  return JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4)) as Activation;
}

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '10000' })
  .extend('person', { scope: 'file' }, ({ api }) => signUp(api))
  // A form posted to the verification page, as a browser sends it.
  .extend(
    'postForm',
    { scope: 'file' },
    ({ server }) =>
      (path: string, fields: Record<string, string>) =>
        postForm(server, path, fields),
  )
  .extend(
    'poll',
    { scope: 'file' },
    ({ api }) =>
      (deviceCode: string) =>
        api.post<{ status: string; workspace?: { id: string } }>('/api/v1/activate/poll', { body: { device_code: deviceCode } }),
  )
  // Starts an activation whose client label and user agent are chosen by the test, as a device would.
  .extend(
    'activate',
    { scope: 'file' },
    ({ server, api }) =>
      async (body: Record<string, string>, headers: Record<string, string> = {}): Promise<Activation> => {
        server.clock.advance(server.config.rateLimits.activationCreateIntervalMs);
        const reply = await api.post<Activation>('/api/v1/activate', { body, headers });
        expect(reply.status).toBe(200);
        return reply.body;
      },
  )
  // The file's person signs in on the page to review the code.
  .extend(
    'review',
    { scope: 'file' },
    ({ postForm, person }) =>
      (code: string) =>
        postForm('/activate/review', { code, email: person.email, password: person.password }),
  )
  .extend(
    'lookup',
    { scope: 'file' },
    ({ api, person }) =>
      async (code: string) =>
        (
          await api.get<{ client_label: string; client_ua: string }>(`/api/v1/activate/lookup?code=${code}`, {
            headers: session(person),
          })
        ).body,
  );

describe('GET /activate', () => {
  it('serves the sign-in form with the code pre-filled and strict headers', async ({ server, api }) => {
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
  it('shows the code, client, user agent, IP and time left, then approves into the chosen workspace', async ({
    server,
    api,
    person,
    postForm,
    poll,
  }) => {
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

  it('denies', async ({ server, api, person, postForm, poll }) => {
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

  it('re-shows the form with a message for a wrong password or an unknown code', async ({ server, api, person, postForm }) => {
    const created = await startActivation(server, api);
    const wrong = await postForm('/activate/review', { code: created.user_code, email: person.email, password: 'not it' });
    expect(wrong.status).toBe(401);
    expect(wrong.html).toContain('Invalid email or password');
    expect(wrong.html).not.toContain('not it');
    const unknown = await postForm('/activate/review', { code: 'ZZZZ-ZZZZ', email: person.email, password: person.password });
    expect(unknown.status).toBe(404);
    expect(unknown.html).toContain('No activation with this code');
  });

  it('refuses a tampered or expired ticket, and a workspace the person is not in', async ({
    server,
    api,
    person,
    postForm,
    poll,
  }) => {
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

  it('tells the person when the code was already decided', async ({ server, api, person, postForm }) => {
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

describe('what the device says about itself', () => {
  it('keeps an accented or emoji label as sent, from the body or as UTF-8 in the header, on a page declared UTF-8', async ({
    server,
    activate,
    review,
    lookup,
  }) => {
    const label = 'Zoë’s café laptop 🚀 👩‍💻';
    for (const created of [await activate({ client_label: label }), await activateWithUtf8Header(server, label)]) {
      const page = await review(created.user_code);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(page.html).toContain('<meta charset="utf-8">');
      expect(page.html).toContain(label);
      expect((await lookup(created.user_code)).client_label).toBe(label);
    }
  });

  it('escapes HTML in the label and the user agent, and marks both as reported by the device', async ({ activate, review }) => {
    const created = await activate(
      { client_label: '<img src=x onerror=alert(1)>' },
      { 'user-agent': 'agent/1 <b onmouseover=alert(2)>' },
    );
    const page = await review(created.user_code);
    expect(page.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(page.html).toContain('agent/1 &lt;b onmouseover=alert(2)&gt;');
    expect(page.html).not.toMatch(/<img|<b /);
    expect(page.html.match(/reported by the device/g)).toHaveLength(2);
  });

  it('caps a 5,000-character label and user agent when the activation is made, cutting them with an ellipsis', async ({
    activate,
    review,
    lookup,
  }) => {
    const created = await activate({ client_label: 'L'.repeat(5000) }, { 'user-agent': `agent/1 ${'u'.repeat(5000)}` });
    const stored = await lookup(created.user_code);
    expect(stored.client_label).toBe(`${'L'.repeat(99)}…`);
    expect(stored.client_ua).toBe(`agent/1 ${'u'.repeat(191)}…`);
    const page = await review(created.user_code);
    expect(page.html).toContain(stored.client_label);
    expect(page.html).not.toContain('L'.repeat(100));

    // Emoji are cut whole, never halfway through; direction overrides are taken out.
    const emoji = await activate({ client_label: '👩‍💻'.repeat(5000) });
    expect((await lookup(emoji.user_code)).client_label).toBe(`${'👩‍💻'.repeat(99)}…`);
    const spoof = await activate({ client_label: 'invoice\u202Efdp.exe' });
    expect((await lookup(spoof.user_code)).client_label).toBe('invoicefdp.exe');
  });
});

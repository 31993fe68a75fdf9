import { once } from 'node:events';
import { connect } from 'node:net';
import { describe, expect } from 'vitest';
import { deriveKey, hmacHex } from '../../../src/secrets.js';
import { createExecution, runToEnd } from '../../helpers/executions.js';
import { session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServerPerTest } from '../../helpers/fixtures.js';
import { type Client, client, type Reply } from '../../helpers/http.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { openStream } from '../../helpers/sse.js';

// The event stream is answered ahead of Fastify's routing (src/http/front-routes.ts), so
// these check that it still passes every gate the other routes pass.

const it = withServerPerTest()
  .extend('person', ({ api }) => signUp(api))
  // Servers of a test's own (other settings, or shut down by the test), each with a person
  // signed up; whichever the test has not stopped are closed after it.
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
  .extend('ownServers', ({}, { onCleanup }) => {
    const running = new Set<TestServer>();
    onCleanup(async () => {
      for (const server of running) await server.close();
    });
    return {
      async start(env: Record<string, string> = {}): Promise<{ server: TestServer; api: Client; person: TestUser }> {
        const server = await startServer(env);
        running.add(server);
        const api = client(server.url);
        return { server, api, person: await signUp(api) };
      },
      async stop(server: TestServer): Promise<void> {
        running.delete(server);
        await server.close();
      },
    };
  });

async function streamUrl(api: Client, person: TestUser, executionId: string): Promise<URL> {
  const token = await api.get<{ sseUrl: string }>(`/api/v1/executions/${executionId}/stream-token`, {
    headers: session(person),
  });
  return new URL(token.body.sseUrl);
}

const pathAndQuery = (url: URL) => url.pathname + url.search;

function expectRateHeaders(headers: Headers): void {
  for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(headers.get(name), name).toMatch(/^\d+$/);
  }
}

function expectInvalidInput(reply: Reply): void {
  expect(reply.status).toBe(400);
  expect(reply.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.any(String) } });
  expectRateHeaders(reply.headers);
}

describe('the event stream route', () => {
  it('answers with the stream headers and the rate-limit headers', async ({ api, person }) => {
    const { created } = await runToEnd(api, person, 'ticker', '2 1');
    const response = await fetch(await streamUrl(api, person, created.id));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    expectRateHeaders(response.headers);
    expect((await response.text()).startsWith(': connected\n\n')).toBe(true);
  });

  it('counts against the REST limit of the client address, with the 429 envelope when over it', async ({ ownServers }) => {
    const { server, api, person } = await ownServers.start({ RATE_LIMIT_REST_PER_MINUTE: '4' });
    const created = await createExecution(api, person, 'ticker', '1 1');
    const url = pathAndQuery(await streamUrl(api, person, created.id));
    // A fresh window for 127.0.0.1, which the sign-up counted against.
    server.clock.advance(60_000);
    const first = await openStream(server.url + url);
    expect(first.status).toBe(200);
    first.close();
    expect((await api.get('/api/v1/me')).status).toBe(401);
    expect((await api.get(`${url}&lastSeq=abc`)).status).toBe(400);
    expect((await api.get(url.replace(/sig=[0-9a-f]+/, 'sig=00'))).status).toBe(401);
    const refused = await api.get(url);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: { type: 'rate_limit_error', message: expect.any(String) } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');

    server.clock.advance(60_000);
    const after = await streamUrl(api, person, created.id);
    const again = await openStream(after.toString());
    expect(again.status).toBe(200);
    again.close();
  });

  it('counts per forwarded address only behind a trusted proxy', async ({ ownServers }) => {
    for (const trusted of [true, false]) {
      const { server, api, person } = await ownServers.start({ RATE_LIMIT_REST_PER_MINUTE: '2', TRUST_PROXY: String(trusted) });
      const created = await createExecution(api, person, 'ticker', '1 1');
      const url = pathAndQuery(await streamUrl(api, person, created.id));
      server.clock.advance(60_000);
      const statuses = [];
      for (const address of ['203.0.113.1', '203.0.113.2', '203.0.113.3']) {
        const stream = await openStream(server.url + url, { 'x-forwarded-for': `${address}, 10.0.0.1` });
        statuses.push(stream.status);
        stream.close();
      }
      expect(statuses).toEqual(trusted ? [200, 200, 200] : [200, 200, 429]);
      await ownServers.stop(server);
    }
  });

  it('refuses bad input with 400 in the standard envelope', async ({ api, person }) => {
    const created = await createExecution(api, person, 'ticker', '1 1');
    const url = await streamUrl(api, person, created.id);
    const ts = url.searchParams.get('ts') ?? '';
    const sig = url.searchParams.get('sig') ?? '';
    expectInvalidInput(await api.get(`${pathAndQuery(url)}&ts=${ts}`));
    expectInvalidInput(await api.get(`${pathAndQuery(url)}&sig=${sig}`));
    expectInvalidInput(await api.get(`${pathAndQuery(url)}&lastSeq=1&lastSeq=2`));
    expectInvalidInput(await api.get(`${pathAndQuery(url)}&lastSeq=${'1'.repeat(17)}`));
    expectInvalidInput(await api.get(`/executions/${'a'.repeat(101)}/stream?ts=${ts}&sig=${sig}`));
    expectInvalidInput(await api.get(`/executions/%E0%A4%A/stream?ts=${ts}&sig=${sig}`));
    expectInvalidInput(await api.get(pathAndQuery(url), { headers: { 'last-event-id': 'seven' } }));
  });

  it('is 404 in the standard envelope for an execution that does not exist, once signed', async ({ server, api }) => {
    const id = '00000000-0000-4000-8000-000000000000';
    const ts = String(server.clock.nowMs());
    const sig = hmacHex(deriveKey(server.config.signingSecret, 'url-signing'), `stream.${id}.${ts}`);
    const reply = await api.get(`/executions/${id}/stream?ts=${ts}&sig=${sig}`);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Execution not found' } });
  });

  it('answers other methods 405 with Allow, in words, after the rate limit (the router does not know the address)', async ({
    api,
    person,
  }) => {
    const created = await createExecution(api, person, 'ticker', '1 1');
    const url = pathAndQuery(await streamUrl(api, person, created.id));
    for (const reply of [await api.post(url, { body: {} }), await api.delete(url), await api.put('/executions/x/stream')]) {
      expect([reply.status, reply.headers.get('allow')]).toEqual([405, 'GET']);
      expect(reply.body).toEqual({
        error: { code: 'METHOD_NOT_ALLOWED', message: expect.stringMatching(/^This address can only be read/) },
      });
      expect(reply.headers.get('x-ratelimit-limit')).not.toBeNull();
    }
  });

  it('is ended at shutdown rather than holding the shutdown open', async ({ ownServers }) => {
    const { server, api, person } = await ownServers.start();
    const idle = await createExecution(api, person, 'ticker', '1 1');
    const stream = await openStream((await streamUrl(api, person, idle.id)).toString());
    expect(stream.status).toBe(200);
    await ownServers.stop(server);
    await stream.ended;
    expect(stream.droppedBy).toBeUndefined();
    expect(stream.body).toBe('');
  });

  it('does not let a connection that never sent a request hold the shutdown open', async ({ ownServers }) => {
    const { server } = await ownServers.start();
    const { port } = new URL(server.url);
    const silent = connect(Number(port), '127.0.0.1');
    await once(silent, 'connect');
    const closed = once(silent, 'close');
    await ownServers.stop(server);
    await closed;
  });

  it('logs the path it served, never the signature in the query', async ({ server, api, person }) => {
    const { created } = await runToEnd(api, person, 'ticker', '1 1');
    const url = await streamUrl(api, person, created.id);
    const stream = await openStream(url.toString());
    await stream.ended;
    await api.get(`${pathAndQuery(url)}&lastSeq=bad`);
    const logs = server.logs.join('\n');
    expect(logs).toContain(`"path":"/executions/${created.id}/stream"`);
    expect(logs).toContain('"msg":"event stream opened"');
    expect(logs).toContain('"msg":"request refused"');
    expect(logs).not.toContain(url.searchParams.get('sig') ?? 'no signature');
  });
});

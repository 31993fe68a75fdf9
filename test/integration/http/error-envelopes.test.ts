import { connect } from 'node:net';
import { describe, expect } from 'vitest';
import { signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

/**
 * Malformed requests at every route the server has, sent as raw bytes so nothing between
 * the test and the server tidies them up. Whatever refuses them (the route, Fastify's
 * parsers and router, the stream route served ahead of Fastify, or Node's HTTP parser),
 * the answer must be one of the spec's envelopes, never Fastify's own
 * `{"error":"Bad Request","statusCode":400}`, and never a 5xx.
 */
const it = withServer({
  RATE_LIMIT_REST_PER_MINUTE: '1000000',
  RATE_LIMIT_POLL_BURST: '1000000',
  RATE_LIMIT_ACTIVATION_INTERVAL_MS: '1',
})
  .extend('person', { scope: 'file' }, ({ api }) => signUp(api))
  .extend('routes', { scope: 'file' }, async ({ api }) => {
    const document = await api.get<{ paths: Record<string, Record<string, unknown>> }>('/openapi.json');
    const routes = Object.entries(document.body.paths).flatMap(([path, operations]) =>
      Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path })),
    );
    // Routes the document leaves out: the stream (served ahead of Fastify) and the HTML pages.
    routes.push(
      { method: 'GET', path: '/executions/{id}/stream' },
      { method: 'GET', path: '/activate' },
      { method: 'POST', path: '/activate' },
    );
    return routes;
  })
  // Raw requests to the file's server.
  .extend(
    'sendRaw',
    { scope: 'file' },
    ({ server }) =>
      (request: string) =>
        sendRawTo(server.url, request),
  )
  .extend(
    'request',
    { scope: 'file' },
    ({ sendRaw }) =>
      (method: string, target: string, headers: Record<string, string>, body?: string) =>
        sendRaw(rawRequest(method, target, headers, body)),
  );

interface RawReply {
  status: number;
  contentType: string;
  body: string;
}

/** Sends bytes as they are and reads the whole answer (the request asks for the connection to close). */
function sendRawTo(url: string, request: string): Promise<RawReply> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      const contentType = /^content-type: *(.*)$/im.exec(head)?.[1] ?? '';
      resolve({ status, contentType, body: rest.join('\r\n\r\n') });
    });
  });
}

/** The bytes of one request, with the connection closed after it. */
function rawRequest(method: string, target: string, headers: Record<string, string>, body?: string): string {
  const lines = Object.entries({ host: '127.0.0.1', connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}`);
  if (body !== undefined) lines.push(`content-length: ${Buffer.byteLength(body)}`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

/** The path with every parameter filled, and the first one (or a last segment) made undecodable. */
function targets(path: string): { plain: string; undecodable: string } {
  const id = '7d6f0c52-3f0e-4a8e-9a53-0f4f3c1b2a10';
  const plain = path.replace(/\{[^}]+\}/g, id).replace(/\*$/, 'index.html');
  const undecodable = /\{[^}]+\}/.test(path)
    ? path.replace(/\{[^}]+\}/, '%E0%A4%A').replace(/\{[^}]+\}/g, id)
    : `${plain.replace(/\/$/, '')}/%zz`;
  return { plain, undecodable };
}

const ENVELOPES = [
  { error: { code: expect.any(String), message: expect.any(String) } },
  { error: { type: 'rate_limit_error', message: expect.any(String) } },
  { error: 'EXECUTION_RUNNING', message: expect.any(String) },
];
const ARTIFACT_ENVELOPE = { error: expect.any(String), isRunning: expect.any(Boolean) };

const LONG_FIELDS = JSON.stringify(
  Object.fromEntries(
    ['email', 'password', 'name', 'label', 'input', 'skill_slug', 'url', 'key', 'code', 'packId'].map((k) => [
      k,
      'x'.repeat(5000),
    ]),
  ),
);

const PROGRAM_WORDS =
  /must NOT|must have required|must match|must be equal|must be (string|integer|number|object|array|boolean)\b|(body|querystring|params|headers)\/|\b(GET|POST|PUT|PATCH|DELETE) \/|\/api\/v1/;

function expectEnvelope(reply: RawReply, where: string): void {
  expect(reply.status, where).toBeGreaterThanOrEqual(200);
  expect(reply.status, where).toBeLessThan(500);
  if (reply.status < 400) return;
  if (reply.contentType.startsWith('text/html')) {
    expect(where, 'only the pages answer in HTML').toMatch(/ \/(activate|billing\/checkout)/);
    return;
  }
  expect(reply.contentType, where).toMatch(/^application\/json/);
  const body: unknown = JSON.parse(reply.body);
  expect(body, where).not.toHaveProperty('statusCode');
  const shapes = where.includes('/api/v1/artifacts') ? [...ENVELOPES, ARTIFACT_ENVELOPE] : ENVELOPES;
  // People read these messages (the app and the CLI show them): no validator's text, no HTTP method, no route.
  const message = JSON.stringify(body);
  expect(message, where).not.toMatch(PROGRAM_WORDS);
  expect(
    shapes.some(
      (shape) =>
        expect.objectContaining(shape).asymmetricMatch(body) && Object.keys(body as object).length === Object.keys(shape).length,
    ),
    `${where}: ${reply.body}`,
  ).toBe(true);
}

describe('malformed requests at every route', () => {
  it('an undecodable path is answered in an envelope, signed in or not', async ({ person, routes, request }) => {
    for (const { method, path } of routes) {
      const { undecodable } = targets(path);
      const signedOut: Record<string, string> = {};
      for (const headers of [signedOut, { 'x-auth-token': person.token }]) {
        expectEnvelope(await request(method, undecodable, headers), `${method} ${undecodable}`);
      }
    }
  });

  it('broken JSON, a foreign content type and undecodable queries are answered in an envelope', async ({
    person,
    routes,
    request,
  }) => {
    for (const { method, path } of routes) {
      const { plain } = targets(path);
      const auth = { 'x-auth-token': person.token };
      const cases: [Record<string, string>, string | undefined, string][] = [
        [{ ...auth, 'content-type': 'application/json' }, '{"email": ', plain],
        [{ ...auth, 'content-type': 'application/xml' }, '<a/>', plain],
        [{ ...auth, 'content-type': 'application/json' }, '\u0000', plain],
        [auth, undefined, `${plain}?limit=%zz&offset=-1&lastSeq=%E0`],
        // Fields missing, mistyped or far too long: the schema's refusals, which people read.
        [{ ...auth, 'content-type': 'application/json' }, '{}', plain],
        [{ ...auth, 'content-type': 'application/json' }, '[1]', plain],
        [{ ...auth, 'content-type': 'application/json' }, LONG_FIELDS, plain],
        [auth, undefined, `${plain}?limit=ten&offset=x&channels=${'c'.repeat(600)}&statuses=nope`],
      ];
      for (const [headers, body, target] of cases) {
        if (body !== undefined && method === 'GET') continue;
        expectEnvelope(await request(method, target, headers, body), `${method} ${target}`);
      }
    }
  });

  it("requests Node's own parser refuses are answered in the envelope too", async ({ sendRaw, request }) => {
    const garbage = await sendRaw('GET /api/v1/me HTTP/1.1\r\nHost: x\r\nThis is not a header\r\n\r\n');
    expect(garbage.status).toBe(400);
    expect(JSON.parse(garbage.body)).toEqual({ error: { code: 'INVALID_INPUT', message: 'Malformed HTTP request' } });

    const huge = await request('GET', '/api/v1/me', { 'x-filler': 'a'.repeat(20_000) });
    expect(huge.status).toBe(431);
    expect(JSON.parse(huge.body)).toEqual({ error: { code: 'INVALID_INPUT', message: 'Request headers are too large' } });

    const notHttp = await sendRaw('\u0016\u0003\u0001 a TLS hello, say\r\n\r\n');
    expect(notHttp.status).toBe(400);
    expect(JSON.parse(notHttp.body)).toMatchObject({ error: { code: 'INVALID_INPUT' } });
  });
});

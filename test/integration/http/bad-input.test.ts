import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { describe, expect } from 'vitest';
import { runForArtifact } from '../../helpers/artifacts.js';
import { signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

// Limits raised so the generated requests reach validation instead of stopping at 429.
const it = withServer({
  RATE_LIMIT_REST_PER_MINUTE: '1000000',
  RATE_LIMIT_POLL_BURST: '1000000',
  RATE_LIMIT_ACTIVATION_INTERVAL_MS: '1',
})
  .extend('person', { scope: 'file' }, ({ api }) => signUp(api))
  // A person of its own for the artifact endpoints: the random requests may log the shared one out.
  .extend('owner', { scope: 'file' }, ({ api }) => signUp(api))
  .extend(
    'artifactId',
    { scope: 'file' },
    async ({ api, owner }) => (await runForArtifact(api, owner, 'markdown-to-html', '# For random requests')).artifactId,
  );

const ENDPOINTS = [
  ['POST', '/api/v1/activate'],
  ['POST', '/api/v1/activate/poll'],
  ['POST', '/api/v1/activate/confirm'],
  ['POST', '/api/v1/activate/deny'],
  ['GET', '/api/v1/activate/lookup'],
  ['POST', '/api/v1/auth/signup'],
  ['POST', '/api/v1/auth/login'],
  ['POST', '/api/v1/auth/logout'],
  ['GET', '/api/v1/me'],
  ['POST', '/api/v1/workspaces'],
  ['POST', '/api/v1/workspaces/x/members'],
  ['PUT', '/api/v1/workspaces/current'],
  ['POST', '/api/v1/keys'],
  ['DELETE', '/api/v1/keys/x'],
  ['POST', '/api/v1/billing/purchase'],
  ['POST', '/api/v1/billing/subscribe'],
  ['POST', '/api/v1/billing/webhook'],
  ['GET', '/api/v1/billing/balance'],
  ['PUT', '/api/v1/byok'],
  ['GET', '/api/v1/billing/return/x'],
] as const;

/** A body in either envelope the spec allows for a 4xx here. */
function expectEnvelope(status: number, body: unknown): void {
  expect(status).toBeGreaterThanOrEqual(200);
  expect(status).toBeLessThan(500);
  if (status < 400) return;
  const error = (body as { error?: { code?: unknown; type?: unknown; message?: unknown } }).error;
  expect(typeof error?.message).toBe('string');
  expect(status === 429 ? error?.type : error?.code).toEqual(expect.any(String));
}

const jsonValue = fc.jsonValue({ maxDepth: 3 });
const bodyText = fc.oneof(
  jsonValue.map((value) => JSON.stringify(value)),
  fc
    .record({
      code: jsonValue,
      device_code: jsonValue,
      email: jsonValue,
      password: jsonValue,
      name: jsonValue,
      packId: jsonValue,
      key: jsonValue,
    })
    .map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom('', '{', '{"a":', 'null', '[]', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'),
);
const headerText = fc.string({ maxLength: 80 }).filter((text) => !/[\r\n\0]/.test(text));
const headers = fc.record(
  {
    'x-api-key': fc.oneof(headerText, fc.constant('sklt_live_'.padEnd(50, 'A'))),
    'x-auth-token': fc.oneof(headerText, fc.constant('valid')),
    authorization: headerText,
    'x-workspace-id': fc.oneof(headerText, fc.uuid()),
    'x-client-label': headerText,
    'user-agent': headerText,
    'content-type': fc.constantFrom(
      'application/json',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-8',
      'garbage/%%',
    ),
  },
  { requiredKeys: [] },
);

async function injectRandom(
  app: FastifyInstance,
  person: TestUser,
  endpoint: (typeof ENDPOINTS)[number],
  body: string,
  sent: Record<string, string>,
  query: string,
) {
  const withToken = { ...sent };
  if (withToken['x-auth-token'] === 'valid') withToken['x-auth-token'] = person.token;
  const [method, path] = endpoint;
  return app.inject({ method, url: `${path}?${query}`, headers: withToken, ...(method === 'GET' ? {} : { payload: body }) });
}

describe('random bodies and headers at the activation, auth and billing endpoints', () => {
  it('never produce a 5xx, and every 4xx speaks the envelope', async ({ server, person }) => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENDPOINTS),
        bodyText,
        headers,
        fc.oneof(
          fc.constant(''),
          fc.string({ maxLength: 40 }).map((code) => `code=${encodeURIComponent(code)}`),
          fc.string({ maxLength: 40 }),
        ),
        async (endpoint, body, sent, query) => {
          const reply = await injectRandom(server.app, person, endpoint, body, sent as Record<string, string>, query);
          expectEnvelope(reply.statusCode, reply.headers['content-type']?.toString().includes('json') ? reply.json() : {});
        },
      ),
      { numRuns: 600 },
    );
  });
});

const ARTIFACT_ROUTES = [
  ['GET', '', 'artifact'],
  ['GET', '/manifest', 'standard'],
  ['GET', '/download', 'artifact'],
  ['GET', '/raw', 'artifact'],
  ['GET', '/file/', 'artifact'],
  ['DELETE', '', 'artifact'],
  ['POST', '/publish', 'standard'],
  ['POST', '/unpublish', 'artifact'],
  ['POST', '/install', 'artifact'],
] as const;

// Literal `.` and `..` segments (in the path and as the id) are left out: inject resolves
// them before routing, as a browser would; artifact-sharing and artifacts tests send them raw.
const pathText = fc
  .oneof(
    fc.string({ maxLength: 60 }).map((text) => text.split('/').map(encodeURIComponent).join('/')),
    fc.constantFrom('index.html', '%2e%2e%2f', '..%5cindex.html', '%00', '//', '%252e%252e'),
  )
  .filter((text) => !text.split('/').some((segment) => segment === '.' || segment === '..'));

describe('random ids, paths and queries at the artifact endpoints', () => {
  it("never produce a 5xx, and every 4xx speaks its route family's shape", async ({ server, owner, artifactId }) => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ARTIFACT_ROUTES),
        fc
          .oneof(fc.constant('real'), fc.uuid(), fc.string({ maxLength: 40 }).map(encodeURIComponent))
          .filter((id) => id !== '.' && id !== '..'),
        pathText,
        fc.string({ maxLength: 30 }).map(encodeURIComponent),
        fc.boolean(),
        async ([method, suffix, family], id, filePath, query, signedIn) => {
          const target = id === 'real' ? artifactId : id;
          const url = `/api/v1/artifacts/${target}${suffix}${suffix.endsWith('/') ? filePath : ''}?limit=${query}`;
          const reply = await server.app.inject({ method, url, headers: signedIn ? { 'x-auth-token': owner.token } : {} });
          expect(reply.statusCode, url).toBeLessThan(500);
          if (reply.statusCode < 400 || reply.statusCode === 429) return;
          const body = reply.json();
          if (family === 'artifact') expect(body, url).toEqual({ error: expect.any(String), isRunning: false });
          else expect(body, url).toEqual({ error: { code: expect.any(String), message: expect.any(String) } });
        },
      ),
      { numRuns: 400 },
    );
    const listed = await server.app.inject({ url: '/api/v1/artifacts?limit=abc', headers: { 'x-auth-token': owner.token } });
    expect([listed.statusCode, listed.json()]).toEqual([400, { error: expect.any(String), isRunning: false }]);
    for (let run = 0; run < 100; run++) {
      const reply = await server.app.inject({ url: `/public/${encodeURIComponent(String(run))}/${fc.sample(pathText, 1)[0]}` });
      expect(reply.statusCode).toBeLessThan(500);
    }
  });
});

describe('specific bad input', () => {
  it('malformed JSON is 400 INVALID_INPUT', async ({ api }) => {
    const reply = await api.post('/api/v1/auth/login', { raw: '{"email": "a@b.c", ' });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'INVALID_INPUT', message: 'Request body is not valid JSON' } });
  });

  it('a huge body is 413 PAYLOAD_TOO_LARGE', async ({ api }) => {
    // Its own person: the random requests above may have logged the shared one out.
    const person = await signUp(api);
    const reply = await api.post('/api/v1/activate/confirm', {
      body: { code: 'x'.repeat(2 * 1024 * 1024) },
      headers: { 'x-auth-token': person.token },
    });
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
  });

  it('a wrong content type is 400, never a 5xx', async ({ api }) => {
    const reply = await api.post('/api/v1/activate/poll', { raw: 'device_code=abc', headers: { 'content-type': 'text/plain' } });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: { code: 'INVALID_INPUT', message: expect.any(String) } });
  });

  it('an over-long code or device code is 400, a garbage code is 404', async ({ api }) => {
    const person = await signUp(api);
    const long = await api.post('/api/v1/activate/poll', { body: { device_code: 'x'.repeat(5000) } });
    expect(long.status).toBe(400);
    const garbage = await api.post('/api/v1/activate/confirm', {
      body: { code: '💥💥💥💥-💥' },
      headers: { 'x-auth-token': person.token },
    });
    expect(garbage.status).toBe(404);
  });

  it('a body on POST /activate that is not an object is ignored', async ({ server, api }) => {
    server.clock.advance(1000);
    const reply = await api.post('/api/v1/activate', { raw: '[1,2,3]' });
    expect(reply.status).toBe(200);
  });
});

import { describe, expect } from 'vitest';
import { createTeam, session, signUp } from '../../helpers/factories.js';
import { withApp } from '../../helpers/fixtures.js';

/**
 * A known address asked the wrong way (replacing the list of runs) is a 405 with an Allow
 * header naming what it takes, in the API's envelope and in words; an address served for no
 * method stays a 404. Pages answer a browser in HTML.
 */
const it = withApp({ RATE_LIMIT_REST_PER_MINUTE: '1000000' })
  .extend('person', { scope: 'file' }, ({ api }) => signUp(api))
  .extend('served', { scope: 'file' }, async ({ api }) => {
    const document = await api.get<{ paths: Record<string, Record<string, unknown>> }>('/openapi.json');
    return Object.entries(document.body.paths).map(([path, operations]) => ({
      path,
      methods: Object.keys(operations).map((method) => method.toUpperCase()),
    }));
  });

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const PROGRAM_WORDS = /\b(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)\b|\/api\/v1|\/executions/;
const ID = '7d6f0c52-3f0e-4a8e-9a53-0f4f3c1b2a10';

/** Allow as the router serves it: every GET brings its HEAD. */
function allowOf(methods: string[]): string[] {
  return methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).sort();
}

const listed = (allow: string | null) => (allow ?? '').split(', ').sort();

describe('a known address asked the wrong way', () => {
  it('answers 405 METHOD_NOT_ALLOWED with Allow, in words, at every documented address', async ({ api, person, served }) => {
    let checked = 0;
    for (const { path, methods } of served) {
      // The stream is served ahead of the router, which does not know its address.
      if (path.endsWith('/stream')) continue;
      const target = path.replace(/\{[^}]+\}/g, ID);
      let allow: string[] | undefined;
      for (const method of METHODS.filter((one) => !methods.includes(one))) {
        // Served by another route whose pattern takes this address too (a workspace's id could be "current").
        if (allow?.includes(method)) continue;
        const reply = await api[method.toLowerCase() as 'put'](target, { headers: session(person) });
        const where = `${method} ${path}`;
        expect(reply.status, where).toBe(405);
        allow = listed(reply.headers.get('allow'));
        expect(allow, where).toEqual(expect.arrayContaining(allowOf(methods)));
        expect(reply.body, where).toEqual({ error: { code: 'METHOD_NOT_ALLOWED', message: expect.any(String) } });
        expect((reply.body as { error: { message: string } }).error.message, where).not.toMatch(PROGRAM_WORDS);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('says what the address can do instead, signed in or not', async ({ api, person }) => {
    for (const headers of [session(person), {}]) {
      const replaced = await api.put('/api/v1/executions', { body: { skill_slug: 'ticker' }, headers });
      expect([replaced.status, replaced.body]).toEqual([
        405,
        {
          error: {
            code: 'METHOD_NOT_ALLOWED',
            message:
              'This address cannot be replaced; it can only be read or sent to. The Allow header of this answer lists the methods it takes.',
          },
        },
      ]);
      expect(replaced.headers.get('allow')).toBe('GET, HEAD, POST');
      // Every answer carries the rate-limit headers, this one too.
      expect(replaced.headers.get('x-ratelimit-limit')).toBe('1000000');
    }
    const deleted = await api.delete('/api/v1/me', { headers: session(person) });
    expect((deleted.body as { error: { message: string } }).error.message).toMatch(
      /^This address cannot be deleted; it can only be read\./,
    );
  });

  it("says the same of another workspace's endpoint as of one that does not exist: the address, not the id, decides", async ({
    api,
    person,
  }) => {
    const other = await signUp(api);
    const team = await createTeam(api, other, 'Elsewhere');
    const mine = await api.post<{ id: string }>('/api/v1/webhooks', {
      body: { url: 'https://93.184.215.14/hooks' },
      headers: session(other),
    });
    for (const id of [mine.body.id, ID, team.id]) {
      const reply = await api.put(`/api/v1/webhooks/${id}`, { body: {}, headers: session(person) });
      expect([reply.status, reply.headers.get('allow')], id).toEqual([405, 'GET, HEAD, PATCH, DELETE']);
    }
    // Read the right way, another workspace's endpoint is not there.
    const read = await api.get(`/api/v1/webhooks/${mine.body.id}`, { headers: session(person) });
    expect(read.status).toBe(404);
  });

  it('keeps an address served for no method a 404', async ({ api, person }) => {
    for (const [method, path] of [
      ['GET', '/api/v1/nothing-here'],
      ['PUT', '/api/v1/executionz'],
      ['DELETE', '/api/v1/executions/x/y/z'],
      ['POST', '/nothing-here'],
    ] as const) {
      const reply = await api[method.toLowerCase() as 'put'](path, { headers: session(person) });
      expect([reply.status, reply.headers.get('allow')], `${method} ${path}`).toEqual([404, null]);
      expect(reply.body).toEqual({
        error: { code: 'NOT_FOUND', message: expect.stringContaining('There is nothing at this address') },
      });
    }
  });

  it('answers the API, MCP and OAuth in the JSON envelope, and a browser opening a page in HTML', async ({ api }) => {
    const browser = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
    for (const [path, allow, headers] of [
      ['/api/v1/me', 'GET, HEAD', browser],
      ['/mcp', 'GET, HEAD, POST, DELETE', browser],
      ['/oauth/token', 'POST', { accept: 'application/json' }],
    ] as const) {
      const reply = await api.put(path, { headers });
      expect([reply.status, reply.headers.get('allow'), reply.headers.get('content-type')], path).toEqual([
        405,
        allow,
        'application/json; charset=utf-8',
      ]);
    }
    for (const path of ['/app/skills', '/activate', '/billing/checkout/cs_1']) {
      const page = await api.post(path, { headers: browser });
      expect([page.status, page.headers.get('allow'), page.headers.get('content-type')], path).toEqual([
        405,
        'GET, HEAD',
        'text/html; charset=utf-8',
      ]);
      expect(page.text).toContain('This page cannot do that');
      expect(page.text).not.toMatch(PROGRAM_WORDS);
      // A program asking the same gets the envelope.
      const program = await api.post(path, { headers: { accept: '*/*' } });
      expect([program.status, (program.body as { error: { code: string } }).error.code]).toEqual([405, 'METHOD_NOT_ALLOWED']);
    }
    const missing = await api.get('/no-such-page', { headers: browser });
    expect([missing.status, missing.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
    expect(missing.text).toContain('There is nothing here');
  });
});

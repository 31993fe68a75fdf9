import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { withServer } from '../../helpers/fixtures.js';
import { REDIRECT, register } from '../../helpers/oauth-flow.js';

const it = withServer();

const PARAM_NAMES = [
  'grant_type',
  'code',
  'redirect_uri',
  'client_id',
  'client_secret',
  'code_verifier',
  'refresh_token',
  'resource',
  'scope',
  'token',
  'token_type_hint',
  'response_type',
  'code_challenge',
  'code_challenge_method',
  'state',
  'email',
  'password',
  'workspace',
  'decision',
];

describe('random OAuth requests', () => {
  it('never get a 5xx, on any OAuth path, as a form, JSON or anything else', async ({ server }) => {
    const config = await register(server);
    const clientId = config.clientMetadata().client_id;
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom(clientId, REDIRECT, 'authorization_code', 'refresh_token', 'S256', 'plain', `${server.url}/mcp`, 'allow'),
    );
    const fields = fc.dictionary(fc.constantFrom(...PARAM_NAMES), value, { maxKeys: 8 });
    const path = fc.constantFrom(
      '/oauth/token',
      '/oauth/revoke',
      '/oauth/register',
      '/oauth/authorize',
      '/oauth/interaction/abc/login',
      '/oauth/interaction/abc/confirm',
    );
    const encoding = fc.constantFrom('form', 'json', 'text');
    await fc.assert(
      fc.asyncProperty(path, fields, encoding, async (target, sent, how) => {
        server.clock.advance(60_000);
        const body =
          how === 'form'
            ? new URLSearchParams(sent).toString()
            : how === 'json'
              ? JSON.stringify(target === '/oauth/register' ? { redirect_uris: [sent.redirect_uri ?? REDIRECT], ...sent } : sent)
              : (sent.code ?? 'x');
        const type = how === 'form' ? 'application/x-www-form-urlencoded' : how === 'json' ? 'application/json' : 'text/plain';
        const reply = await fetch(`${server.url}${target}`, { method: 'POST', headers: { 'content-type': type }, body });
        const answer = await reply.text();
        expect(reply.status, `${target} ${how} ${body} -> ${answer.slice(0, 200)}`).toBeLessThan(500);
        const query = await fetch(`${server.url}/oauth/authorize?${new URLSearchParams(sent)}`, { redirect: 'manual' });
        expect(query.status, `authorize ${JSON.stringify(sent)}`).toBeLessThan(500);
      }),
      { numRuns: 60 },
    );
  });

  it('never get a 5xx for a random bearer token on /api/v1 and /mcp', async ({ server }) => {
    const token = fc.string({ minLength: 1, maxLength: 60 }).filter((text) => /^[\x21-\x7e]+$/.test(text));
    await fc.assert(
      fc.asyncProperty(token, fc.constantFrom('/api/v1/me', '/mcp'), async (secret, target) => {
        server.clock.advance(60_000);
        const reply = await fetch(`${server.url}${target}`, {
          method: target === '/mcp' ? 'POST' : 'GET',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          ...(target === '/mcp' ? { body: '{}' } : {}),
        });
        expect(reply.status).toBe(401);
      }),
      { numRuns: 40 },
    );
  });

  it('leaves a server log free of errors', ({ server }) => {
    const errors = server.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
  });
});

import * as oauth from 'openid-client';
import { describe, expect } from 'vitest';
import { signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { authorize, bearer, register } from '../../helpers/oauth-flow.js';
import type { TestServer } from '../../helpers/server.js';

const it = withServer({ OAUTH_ENFORCE_SCOPES: 'true' });

async function tokenWith(server: TestServer, api: Parameters<typeof signUp>[0], scope: string): Promise<string> {
  const config = await register(server);
  const { callback, verifier, state } = await authorize(server, config, await signUp(api), { scope });
  const tokens = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
  expect(tokens.scope).toBe(scope);
  return tokens.access_token;
}

describe('OAUTH_ENFORCE_SCOPES=true', () => {
  it('lets read read, and refuses it a write with 403', async ({ server, api }) => {
    const token = await tokenWith(server, api, 'read');
    expect((await api.get('/api/v1/me', { headers: bearer(token) })).status).toBe(200);
    const write = await api.post('/api/v1/workspaces', { headers: bearer(token), body: { name: 'Nope' } });
    expect(write.status).toBe(403);
    expect(write.body).toMatchObject({ error: { message: 'This access token does not have the write scope' } });
  });

  it('lets write (and admin) read and write', async ({ server, api }) => {
    for (const scope of ['write', 'admin']) {
      const token = await tokenWith(server, api, scope);
      expect((await api.get('/api/v1/me', { headers: bearer(token) })).status).toBe(200);
      expect((await api.post('/api/v1/workspaces', { headers: bearer(token), body: { name: 'Team' } })).status).toBe(201);
    }
  });
});

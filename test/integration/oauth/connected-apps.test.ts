import * as oauth from 'openid-client';
import { describe, expect } from 'vitest';
import { createKey, session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { authorize, bearer, register } from '../../helpers/oauth-flow.js';

const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000' });

interface Listed {
  apps: { id: string; clientId: string; name: string; workspaceId: string; scopes: string[]; connectedAt: string }[];
}

describe('connected apps', () => {
  it('lists an app a person allowed, and disconnecting it stops its tokens and their refresh', async ({ api, server }) => {
    const person = await signUp(api);
    const config = await register(server);
    const authorized = await authorize(server, config, person);
    const tokens = await oauth.authorizationCodeGrant(config, authorized.callback, {
      pkceCodeVerifier: authorized.verifier,
      expectedState: authorized.state,
    });
    expect((await api.get('/api/v1/me', { headers: bearer(tokens.access_token) })).status).toBe(200);

    const listed = await api.get<Listed>('/api/v1/auth/connected-apps', { headers: session(person) });
    expect(listed.status).toBe(200);
    expect(listed.body.apps).toEqual([
      {
        id: expect.any(String),
        clientId: config.clientMetadata().client_id,
        name: 'Test <App>',
        workspaceId: person.user.personalWorkspaceId,
        scopes: expect.arrayContaining(['read', 'write']),
        connectedAt: expect.any(String),
      },
    ]);
    const [app] = listed.body.apps;

    // Nobody else sees it or can end it.
    const stranger = await signUp(api);
    expect((await api.get<Listed>('/api/v1/auth/connected-apps', { headers: session(stranger) })).body.apps).toEqual([]);
    expect((await api.delete(`/api/v1/auth/connected-apps/${app?.id}`, { headers: session(stranger) })).status).toBe(404);
    // Nor can a key or the app itself: only the person signed in.
    const key = await createKey(api, person);
    expect((await api.delete(`/api/v1/auth/connected-apps/${app?.id}`, { headers: { 'x-api-key': key.key } })).status).toBe(403);
    expect((await api.delete(`/api/v1/auth/connected-apps/${app?.id}`, { headers: bearer(tokens.access_token) })).status).toBe(
      403,
    );
    expect((await api.get('/api/v1/me', { headers: bearer(tokens.access_token) })).status).toBe(200);

    const disconnected = await api.delete(`/api/v1/auth/connected-apps/${app?.id}`, { headers: session(person) });
    expect(disconnected.status).toBe(200);
    expect((await api.get('/api/v1/me', { headers: bearer(tokens.access_token) })).status).toBe(401);
    await expect(oauth.refreshTokenGrant(config, tokens.refresh_token as string)).rejects.toThrow();
    expect((await api.get<Listed>('/api/v1/auth/connected-apps', { headers: session(person) })).body.apps).toEqual([]);
  });
});

import * as oauth from 'openid-client';
import { describe, expect } from 'vitest';
import { sweepExpiredOAuthRecords } from '../../../src/oauth/sweep.js';
import { createTeam, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client as Api } from '../../helpers/http.js';
import { Browser } from '../../helpers/oauth-browser.js';
import {
  authorizationUrl,
  authorize,
  bearer,
  INSECURE,
  REDIRECT,
  register,
  throughThePages,
  tokenRequest,
} from '../../helpers/oauth-flow.js';

const it = withServer();

interface Me {
  credential: { type: string };
  workspace: { id: string; name: string | null };
}

function me(api: Api, token: string) {
  return api.get<Me>('/api/v1/me', { headers: bearer(token) });
}

describe('OAuth 2.1 authorization server', () => {
  it('publishes RFC 8414 and RFC 9728 metadata', async ({ server, api }) => {
    const config = await oauth.discovery(new URL(server.url), 'nobody', undefined, undefined, INSECURE);
    const metadata = config.serverMetadata();
    expect(metadata.issuer).toBe(server.url);
    expect(metadata.authorization_endpoint).toBe(`${server.url}/oauth/authorize`);
    expect(metadata.token_endpoint).toBe(`${server.url}/oauth/token`);
    expect(metadata.revocation_endpoint).toBe(`${server.url}/oauth/revoke`);
    expect(metadata.registration_endpoint).toBe(`${server.url}/oauth/register`);
    expect(metadata.code_challenge_methods_supported).toEqual(['S256']);
    expect(metadata.response_types_supported).toEqual(['code']);
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
    const mcp = await api.get<{ resource: string; authorization_servers: string[] }>('/.well-known/oauth-protected-resource/mcp');
    expect(mcp.body).toMatchObject({ resource: `${server.url}/mcp`, authorization_servers: [server.url] });
    const rest = await api.get<{ resource: string }>('/.well-known/oauth-protected-resource');
    expect(rest.body.resource).toBe(`${server.url}/api/v1`);
  });

  it('registers a client, signs in, consents, and the token acts for the person in the chosen workspace', async ({
    server,
    api,
  }) => {
    const person = await signUp(api);
    const team = await createTeam(api, person, 'Crew');
    const config = await register(server);
    const { callback, verifier, state } = await authorize(server, config, person, { workspace: team.id });
    expect(callback.origin + callback.pathname).toBe(REDIRECT);
    const tokens = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toBeDefined();
    expect(tokens.scope).toBe('read write');
    const reply = await me(api, tokens.access_token);
    expect(reply.status).toBe(200);
    expect(reply.body.credential.type).toBe('oauth');
    // Acting in the team chosen at consent, and bound to it: another workspace is refused.
    expect(reply.body.workspace).toMatchObject({ id: team.id, name: 'Crew' });
    const elsewhere = await api.get('/api/v1/me', {
      headers: { ...bearer(tokens.access_token), 'x-workspace-id': person.user.personalWorkspaceId },
    });
    expect(elsewhere.status).toBe(403);
    // Session-only routes (here: making an API key) stay closed to a third-party client.
    const key = await api.post('/api/v1/keys', { headers: bearer(tokens.access_token), body: { label: 'from oauth' } });
    expect(key.status).toBe(403);
    expect(key.body).toMatchObject({
      error: { message: 'This endpoint needs a signed-in person (x-auth-token), not an OAuth access token' },
    });
  });

  it('rotates refresh tokens: the new one works, the old one is refused', async ({ server, api }) => {
    const person = await signUp(api);
    const config = await register(server);
    const { callback, verifier, state } = await authorize(server, config, person);
    const first = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    const second = await oauth.refreshTokenGrant(config, first.refresh_token ?? '');
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await me(api, second.access_token)).status).toBe(200);
    const reused = await tokenRequest(server, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token ?? '',
      client_id: config.clientMetadata().client_id,
    });
    expect(reused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    // Taken for a stolen token: oidc-provider revokes the whole grant, the new tokens too.
    expect((await me(api, second.access_token)).status).toBe(401);
  });

  it('revokes an access token (RFC 7009); it is refused afterwards, and so is the refresh token of its grant', async ({
    server,
    api,
  }) => {
    const person = await signUp(api);
    const config = await register(server);
    const { callback, verifier, state } = await authorize(server, config, person);
    const tokens = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect((await me(api, tokens.access_token)).status).toBe(200);
    await oauth.tokenRevocation(config, tokens.access_token);
    const refused = await me(api, tokens.access_token);
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ error: { message: 'Invalid auth token' } });
    // oidc-provider revokes every token of the grant with it.
    const refresh = await tokenRequest(server, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token ?? '',
      client_id: config.clientMetadata().client_id,
    });
    expect(refresh).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('authorizes the same client again in the same browser without the pages, in the same workspace, after a revocation', async ({
    server,
    api,
  }) => {
    const person = await signUp(api);
    const team = await createTeam(api, person, 'Again');
    const config = await register(server);
    const browser = new Browser(server.url);
    const request = () => authorizationUrl(config, { scope: 'read' });
    const first = await request();
    const callback = await throughThePages(server, first.url, person, { workspace: team.id }, browser);
    const tokens = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: first.verifier });
    await oauth.tokenRevocation(config, tokens.access_token);

    // Signed in and consented already: the browser goes straight back with a code.
    const second = await request();
    const back = await browser.follow(await browser.request(second.url.href));
    expect(back.status).toBe(303);
    const again = await oauth.authorizationCodeGrant(config, new URL(back.headers.get('location') ?? ''), {
      pkceCodeVerifier: second.verifier,
    });
    const reply = await me(api, again.access_token);
    expect(reply.status).toBe(200);
    expect(reply.body.workspace.id).toBe(team.id);
  });

  it('takes the token request as JSON (SPEC), with a confidential client', async ({ server, api }) => {
    const person = await signUp(api);
    const config = await register(server, 'confidential');
    const { code, verifier } = await authorize(server, config, person);
    const { client_id, client_secret } = config.clientMetadata();
    const reply = await tokenRequest(
      server,
      {
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        client_id,
        client_secret: String(client_secret),
        code_verifier: verifier,
      },
      true,
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read write' });
    expect((await me(api, String(reply.body.access_token))).status).toBe(200);
  });

  it('expires access tokens after an hour', async ({ server, api }) => {
    const person = await signUp(api);
    const config = await register(server);
    const { callback, verifier, state } = await authorize(server, config, person);
    const tokens = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    server.clock.advance(3601_000);
    try {
      expect((await me(api, tokens.access_token)).status).toBe(401);
      // The sweep then removes it (and the code, long expired), but not the grant or refresh token.
      expect(await sweepExpiredOAuthRecords({ db: server.db.db, clock: server.clock })).toBeGreaterThan(0);
      const models = await server.db.db.selectFrom('oauth_records').select('model').distinct().execute();
      expect(models.map((row) => row.model)).not.toContain('AccessToken');
      expect(models.map((row) => row.model)).toEqual(expect.arrayContaining(['Grant', 'RefreshToken']));
      const refreshed = await oauth.refreshTokenGrant(config, tokens.refresh_token ?? '');
      expect((await me(api, refreshed.access_token)).status).toBe(200);
    } finally {
      server.clock.advance(-3601_000);
    }
  });

  it('records scopes without enforcing them by default: a read token may write', async ({ server, api }) => {
    const config = await register(server);
    const { callback, verifier, state } = await authorize(server, config, await signUp(api), { scope: 'read' });
    const tokens = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.scope).toBe('read');
    const created = await api.post('/api/v1/workspaces', { headers: bearer(tokens.access_token), body: { name: 'Team' } });
    expect(created.status).toBe(201);
  });

  it('answers the openid scope with an id token signed by the JWKS key (EdDSA) for the person', async ({ server, api }) => {
    const person = await signUp(api);
    const config = await register(server);
    const { callback, verifier, state } = await authorize(server, config, person, { scope: 'openid read' });
    // openid-client checks the id token's signature against /oauth/jwks, its issuer and audience.
    const tokens = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()).toMatchObject({ sub: person.user.id, iss: server.url });
    expect((await me(api, tokens.access_token)).status).toBe(200);
  });

  it('sends Deny back to the client as access_denied', async ({ server, api }) => {
    const person = await signUp(api);
    const config = await register(server);
    const { callback } = await authorize(server, config, person, { decision: 'deny' });
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('code')).toBeNull();
  });
});

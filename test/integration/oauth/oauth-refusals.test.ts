import * as oauth from 'openid-client';
import { describe, expect } from 'vitest';
import { signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { Browser, formOf } from '../../helpers/oauth-browser.js';
import { authorize, bearer, REDIRECT, register, tokenRequest } from '../../helpers/oauth-flow.js';

const it = withServer();

/** The fields of a code exchange for a public client, which a test then spoils one way. */
function exchange(clientId: string, code: string, verifier: string): Record<string, string> {
  return { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, client_id: clientId, code_verifier: verifier };
}

describe('OAuth refusals: the standard error, never a 500', () => {
  it('refuses a wrong PKCE verifier', async ({ server, api }) => {
    const config = await register(server);
    const { code } = await authorize(server, config, await signUp(api));
    const reply = await tokenRequest(server, exchange(config.clientMetadata().client_id, code, oauth.randomPKCECodeVerifier()));
    expect(reply).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses a code used twice', async ({ server, api }) => {
    const config = await register(server);
    const { code, verifier } = await authorize(server, config, await signUp(api));
    const fields = exchange(config.clientMetadata().client_id, code, verifier);
    expect((await tokenRequest(server, fields)).status).toBe(200);
    expect(await tokenRequest(server, fields)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('counts OAuth requests in the REST window, with its headers', async ({ server }) => {
    const reply = await fetch(`${server.url}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'x' }) });
    expect(reply.status).toBe(400);
    expect(reply.headers.get('x-ratelimit-limit')).toBe(String(server.config.rateLimits.restPerMinute));
    expect(await reply.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses a redirect_uri other than the one the code was issued for', async ({ server, api }) => {
    const config = await register(server);
    const { code, verifier } = await authorize(server, config, await signUp(api));
    const fields = { ...exchange(config.clientMetadata().client_id, code, verifier), redirect_uri: 'http://127.0.0.1:9/other' };
    expect(await tokenRequest(server, fields)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses an unregistered redirect_uri at the authorization endpoint, without redirecting to it', async ({ server }) => {
    const config = await register(server);
    const url = oauth.buildAuthorizationUrl(config, {
      redirect_uri: 'https://attacker.example/callback',
      scope: 'read',
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const reply = await fetch(url, { redirect: 'manual' });
    expect(reply.status).toBe(400);
    expect(reply.headers.get('location')).toBeNull();
    expect(reply.headers.get('content-security-policy')).toContain("default-src 'none'");
    const page = await reply.text();
    // Words for the person; the provider's code and text only under the details for the app's makers.
    expect(page).toContain('The app asked to send you back to an address it did not register with this server');
    expect(page).toMatch(
      /<details><summary>Details for the app’s makers<\/summary><p><code>invalid_redirect_uri: redirect_uri did not match any of the client&#39;s registered redirect_uris<\/code>/,
    );
  });

  it('refuses an authorization request without PKCE', async ({ server }) => {
    const config = await register(server);
    const url = oauth.buildAuthorizationUrl(config, { redirect_uri: REDIRECT, scope: 'read' });
    const reply = await fetch(url, { redirect: 'manual' });
    expect(reply.status).toBe(303);
    const back = new URL(reply.headers.get('location') ?? '');
    expect(back.searchParams.get('error')).toBe('invalid_request');
  });

  it('refuses an expired code (the injected clock moved past its 60 s)', async ({ server, api }) => {
    const config = await register(server);
    const { code, verifier } = await authorize(server, config, await signUp(api));
    server.clock.advance(61_000);
    try {
      const reply = await tokenRequest(server, exchange(config.clientMetadata().client_id, code, verifier));
      expect(reply).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    } finally {
      server.clock.advance(-61_000);
    }
  });

  it('refuses a resource that is neither /mcp nor /api/v1', async ({ server, api }) => {
    const config = await register(server);
    const url = oauth.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'read',
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
      resource: 'https://elsewhere.example/api',
    });
    const reply = await fetch(url, { redirect: 'manual' });
    expect(reply.status).toBe(303);
    expect(new URL(reply.headers.get('location') ?? '').searchParams.get('error')).toBe('invalid_target');
    // And at the token endpoint, a resource the grant does not cover.
    const { code, verifier } = await authorize(server, config, await signUp(api));
    const fields = { ...exchange(config.clientMetadata().client_id, code, verifier), resource: 'https://elsewhere.example/api' };
    expect(await tokenRequest(server, fields)).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
  });

  it('refuses a token on the resource it was not issued for, both ways', async ({ server, api }) => {
    const person = await signUp(api);
    const config = await register(server);
    const forMcp = await authorize(server, config, person, { resource: `${server.url}/mcp` });
    const mcpTokens = await oauth.authorizationCodeGrant(
      config,
      forMcp.callback,
      { pkceCodeVerifier: forMcp.verifier, expectedState: forMcp.state },
      { resource: `${server.url}/mcp` },
    );
    const onRest = await api.get('/api/v1/me', { headers: bearer(mcpTokens.access_token) });
    expect(onRest.status).toBe(401);
    expect(onRest.body).toMatchObject({ error: { message: 'Invalid auth token' } });

    const forRest = await authorize(server, config, person);
    const restTokens = await oauth.authorizationCodeGrant(config, forRest.callback, {
      pkceCodeVerifier: forRest.verifier,
      expectedState: forRest.state,
    });
    const onMcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        ...bearer(restTokens.access_token),
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(onMcp.status).toBe(401);
    expect(onMcp.headers.get('www-authenticate')).toContain('/.well-known/oauth-protected-resource/mcp');
  });

  it('answers a wrong password on the sign-in page with the page again, and an unknown interaction with a 400 page', async ({
    server,
    api,
  }) => {
    const person = await signUp(api);
    const config = await register(server);
    const url = oauth.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT,
      scope: 'read',
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const browser = new Browser(server.url);
    const signIn = await formOf(await browser.follow(await browser.request(url.href)));
    const wrong = await browser.request(signIn.action, { form: { email: person.email, password: 'not the password' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('Invalid email or password');
    const stranger = await new Browser(server.url).request(signIn.action, {
      form: { email: person.email, password: person.password },
    });
    expect(stranger.status).toBe(400);
  });
});

describe('the server log', () => {
  it('holds no errors after all of the above: refusals are not failures', async ({ server }) => {
    const errors = server.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
  });
});

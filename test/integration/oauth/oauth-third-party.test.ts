import * as oauth from 'openid-client';
import { describe, expect } from 'vitest';
import { createKey, createTeam, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client as Api } from '../../helpers/http.js';
import { Browser, formOf } from '../../helpers/oauth-browser.js';
import { authorizationUrl, bearer, INSECURE, REDIRECT, register, throughThePages } from '../../helpers/oauth-flow.js';
import type { TestServer } from '../../helpers/server.js';

/** What issue 25 items 8, 9, 11, 12 and 13 found with a third-party client (openid-client). */
const it = withServer({ RATE_LIMIT_REST_PER_MINUTE: '100000' });

interface Me {
  credential: { type: string };
  workspace: { id: string; name: string | null };
}

async function workspaceOf(api: Api, token: string): Promise<string> {
  const reply = await api.get<Me>('/api/v1/me', { headers: bearer(token) });
  expect(reply.status, reply.text).toBe(200);
  return reply.body.workspace.id;
}

/** Consent again in a browser already signed in (prompt=consent), choosing `workspace`. */
async function consentAgain(server: TestServer, config: oauth.Configuration, browser: Browser, workspace: string) {
  const { url, verifier } = await authorizationUrl(config, { prompt: 'consent' });
  const consent = await formOf(await browser.follow(await browser.request(url.href)));
  expect(consent.html).toContain('>Allow</button>');
  const decided = await browser.follow(await browser.request(consent.action, { form: { decision: 'allow', workspace } }));
  expect(decided.status).toBe(303);
  const callback = new URL(decided.headers.get('location') ?? '', server.url);
  return oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier });
}

describe('item 8: a token stays in the workspace chosen when it was issued', () => {
  it('keeps token A in Personal after the client is consented again with "second", through its refreshes', async ({
    server,
    api,
  }) => {
    const person = await signUp(api);
    const second = await createTeam(api, person, 'second');
    const personal = person.user.personalWorkspaceId;
    const config = await register(server);
    const browser = new Browser(server.url);

    const first = await authorizationUrl(config);
    const callback = await throughThePages(server, first.url, person, { workspace: personal }, browser);
    const tokenA = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: first.verifier });
    expect(await workspaceOf(api, tokenA.access_token)).toBe(personal);

    const tokenB = await consentAgain(server, config, browser, second.id);
    expect(await workspaceOf(api, tokenB.access_token)).toBe(second.id);
    expect(await workspaceOf(api, tokenA.access_token)).toBe(personal);

    // The refresh chain of A stays in Personal, B's in second, however often each is refreshed.
    const refreshedA = await oauth.refreshTokenGrant(config, tokenA.refresh_token ?? '');
    expect(await workspaceOf(api, refreshedA.access_token)).toBe(personal);
    const againA = await oauth.refreshTokenGrant(config, refreshedA.refresh_token ?? '');
    expect(await workspaceOf(api, againA.access_token)).toBe(personal);
    const refreshedB = await oauth.refreshTokenGrant(config, tokenB.refresh_token ?? '');
    expect(await workspaceOf(api, refreshedB.access_token)).toBe(second.id);

    // Consenting back to Personal moves neither B nor its refreshes.
    const tokenC = await consentAgain(server, config, browser, personal);
    expect(await workspaceOf(api, tokenC.access_token)).toBe(personal);
    expect(await workspaceOf(api, refreshedB.access_token)).toBe(second.id);
    const againB = await oauth.refreshTokenGrant(config, refreshedB.refresh_token ?? '');
    expect(await workspaceOf(api, againB.access_token)).toBe(second.id);

    // Consenting again in the same workspace adds to the grant already there rather than making another.
    const bindings = () =>
      server.db.db.selectFrom('oauth_grant_workspaces').select('grant_id').where('user_id', '=', person.user.id).execute();
    const before = await bindings();
    expect(before).toHaveLength(3);
    const tokenD = await consentAgain(server, config, browser, personal);
    expect(await workspaceOf(api, tokenD.access_token)).toBe(personal);
    expect(await bindings()).toEqual(before);
  });

  it('keeps the scopes asked for when a consent in another workspace starts a grant of its own', async ({ server, api }) => {
    const person = await signUp(api);
    const second = await createTeam(api, person, 'second');
    const config = await register(server);
    const browser = new Browser(server.url);
    const first = await authorizationUrl(config);
    const callback = await throughThePages(server, first.url, person, {}, browser);
    const tokenA = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: first.verifier });
    const tokenB = await consentAgain(server, config, browser, second.id);
    expect(tokenB.scope).toBe(tokenA.scope);
    // Revoking B (its grant) leaves A alone: they are two grants now.
    await oauth.tokenRevocation(config, tokenB.access_token);
    expect((await api.get('/api/v1/me', { headers: bearer(tokenB.access_token) })).status).toBe(401);
    expect(await workspaceOf(api, tokenA.access_token)).toBe(person.user.personalWorkspaceId);
  });

  it('keeps token A in Personal when the same consent is posted twice at once for two workspaces', async ({ server, api }) => {
    const person = await signUp(api);
    const second = await createTeam(api, person, 'second');
    const personal = person.user.personalWorkspaceId;
    const config = await register(server);
    const browser = new Browser(server.url);
    const first = await authorizationUrl(config);
    const callback = await throughThePages(server, first.url, person, {}, browser);
    const tokenA = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: first.verifier });

    const { url } = await authorizationUrl(config, { prompt: 'consent' });
    const consent = await formOf(await browser.follow(await browser.request(url.href)));
    const posts = await Promise.all(
      [second.id, personal, second.id].map((workspace) =>
        browser.request(consent.action, { form: { decision: 'allow', workspace } }),
      ),
    );
    for (const post of posts) expect([303, 400]).toContain(post.status);
    expect(await workspaceOf(api, tokenA.access_token)).toBe(personal);
    const refreshedA = await oauth.refreshTokenGrant(config, tokenA.refresh_token ?? '');
    expect(await workspaceOf(api, refreshedA.access_token)).toBe(personal);
    // Every grant of the client is bound once, to the workspace chosen for it.
    const bindings = await server.db.db
      .selectFrom('oauth_grant_workspaces')
      .selectAll()
      .where('user_id', '=', person.user.id)
      .execute();
    expect(bindings.length).toBeGreaterThanOrEqual(1);
    expect(new Set(bindings.map((row) => row.grant_id)).size).toBe(bindings.length);
  });

  it('refuses a consent naming a workspace the person is not in, and binds nothing', async ({ server, api }) => {
    const person = await signUp(api);
    const stranger = await signUp(api);
    const theirs = await createTeam(api, stranger, 'theirs');
    const config = await register(server);
    const browser = new Browser(server.url);
    const first = await authorizationUrl(config);
    const callback = await throughThePages(server, first.url, person, {}, browser);
    const tokenA = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: first.verifier });

    const { url } = await authorizationUrl(config, { prompt: 'consent' });
    const consent = await formOf(await browser.follow(await browser.request(url.href)));
    const refused = await browser.request(consent.action, { form: { decision: 'allow', workspace: theirs.id } });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('You are not a member of this workspace');
    expect(await workspaceOf(api, tokenA.access_token)).toBe(person.user.personalWorkspaceId);
  });
});

async function registerRaw(server: TestServer, metadata: Record<string, unknown>) {
  const response = await fetch(`${server.url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none', ...metadata }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The sign-in page, then the consent page, of an authorization request by `config`, as HTML. */
async function pagesOf(server: TestServer, config: oauth.Configuration, person: TestUser) {
  const browser = new Browser(server.url);
  const { url } = await authorizationUrl(config);
  const signIn = await formOf(await browser.follow(await browser.request(url.href)));
  const consent = await formOf(
    await browser.follow(await browser.request(signIn.action, { form: { email: person.email, password: person.password } })),
  );
  return { signIn: signIn.html, consent: consent.html };
}

const UNVERIFIED = 'this app registered itself, and Skillet has not checked who made it';

describe('item 9: registration metadata is bounded, and the consent page does not trust the name', () => {
  it('refuses a 50,000-character client_name with invalid_client_metadata', async ({ server }) => {
    const reply = await registerRaw(server, { client_name: 'x'.repeat(50_000) });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toBe('invalid_client_metadata');
    expect(reply.body.error_description).toBe('client_name may be at most 100 characters; choose a shorter name');
  });

  it('takes a client_name of 100 characters and refuses one of 101', async ({ server }) => {
    expect((await registerRaw(server, { client_name: 'n'.repeat(100) })).status).toBe(201);
    expect((await registerRaw(server, { client_name: 'n'.repeat(101) })).body.error).toBe('invalid_client_metadata');
  });

  it('refuses 2,000 redirect URIs, and one redirect URI of 3,000 characters, with invalid_redirect_uri', async ({ server }) => {
    const many = Array.from({ length: 2000 }, (_, index) => `http://127.0.0.1:9/cb${index}`);
    const tooMany = await registerRaw(server, { redirect_uris: many });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({
      error: 'invalid_redirect_uri',
      error_description: 'redirect_uris may hold at most 10 addresses; register only the ones the app uses',
    });
    const long = await registerRaw(server, { redirect_uris: [`http://127.0.0.1:9/${'a'.repeat(3000)}`] });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({
      error: 'invalid_redirect_uri',
      error_description: 'redirect_uris may hold addresses of at most 2000 characters; use a shorter address',
    });
    expect((await registerRaw(server, { redirect_uris: many.slice(0, 10) })).status).toBe(201);
  });

  it('bounds the other URIs and free text too', async ({ server }) => {
    const refusals = [
      { client_uri: `https://example.com/${'a'.repeat(3000)}` },
      { logo_uri: `https://example.com/${'a'.repeat(3000)}` },
      { policy_uri: `https://example.com/${'a'.repeat(3000)}` },
      { tos_uri: `https://example.com/${'a'.repeat(3000)}` },
      { contacts: Array.from({ length: 50 }, (_, index) => `a${index}@example.com`) },
      { default_acr_values: Array.from({ length: 50 }, (_, index) => `acr${index}`) },
      { jwks: { keys: Array.from({ length: 50 }, () => ({ kty: 'oct', k: 'AAAA' })) } },
      { scope: 'read '.repeat(1000) },
      { client_name: 'Skillet\u202e LIC' },
      { client_name: 'line\nbreak' },
    ];
    for (const metadata of refusals) {
      const reply = await registerRaw(server, metadata);
      expect(reply.status, JSON.stringify(metadata).slice(0, 80)).toBe(400);
      expect(reply.body.error).toBe('invalid_client_metadata');
      expect(String(reply.body.error_description)).not.toMatch(/must|schema|\//);
    }
  });

  it('answers malformed metadata with a 400, never a 500', async ({ server }) => {
    const malformed = [
      { client_name: {} },
      { client_name: Array.from({ length: 20 }, () => 'x'.repeat(500)) },
      { redirect_uris: 'http://127.0.0.1:9/callback' },
      { redirect_uris: [null, 7] },
      { redirect_uris: Array.from({ length: 11 }, () => ({})) },
      { contacts: 'x'.repeat(5000) },
      { jwks: 'keys' },
      { jwks: { keys: 'many' } },
      { client_uri: 42 },
    ];
    for (const metadata of malformed) {
      const reply = await registerRaw(server, metadata);
      expect(reply.status, JSON.stringify(metadata).slice(0, 80)).toBe(400);
      expect(['invalid_client_metadata', 'invalid_redirect_uri'], JSON.stringify(reply.body)).toContain(reply.body.error);
    }
  });

  it('shows the redirect host and marks a self-registered client as unverified, whatever it calls itself', async ({
    server,
    api,
  }) => {
    const person = await signUp(api);
    const posing = await oauth.dynamicClientRegistration(
      new URL(server.url),
      {
        client_name: 'Skillet CLI (official)',
        redirect_uris: ['http://127.0.0.1:9/callback'],
        token_endpoint_auth_method: 'none',
      },
      oauth.None(),
      INSECURE,
    );
    const pages = await pagesOf(server, posing, person);
    expect(pages.signIn).toContain(UNVERIFIED);
    expect(pages.consent).toContain(UNVERIFIED);
    expect(pages.consent).toContain('Skillet CLI (official)');
    expect(pages.consent).toMatch(/you will be sent to <strong>127\.0\.0\.1:9<\/strong>/);
    // The mark comes before the name can be read as ours: the name is never shown without it.
    for (const html of [pages.signIn, pages.consent]) {
      for (const match of html.matchAll(/Skillet CLI \(official\)/g)) {
        const paragraph = html.slice(html.lastIndexOf('<p', match.index), html.indexOf('</p>', match.index));
        expect(paragraph).toContain(UNVERIFIED);
      }
    }
  });
});

describe('item 11: DPoP is not offered', () => {
  it('is not advertised, and a DPoP proof at the token endpoint yields a Bearer token', async ({ server, api }) => {
    const metadata = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).not.toHaveProperty('dpop_signing_alg_values_supported');
    const person = await signUp(api);
    const config = await register(server);
    const { url, verifier } = await authorizationUrl(config);
    const callback = await throughThePages(server, url, person);
    const DPoP = oauth.getDPoPHandle(config, await oauth.randomDPoPKeyPair('ES256'));
    const tokens = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, undefined, { DPoP });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(await workspaceOf(api, tokens.access_token)).toBe(person.user.personalWorkspaceId);
    const asDpop = await api.get('/api/v1/me', { headers: { authorization: `DPoP ${tokens.access_token}` } });
    expect(asDpop.status).toBe(401);
  });
});

/** A request a client would reasonably send to each kind of advertised address. */
function probe(name: string, url: string): Promise<Response> {
  const posted = ['token_endpoint', 'revocation_endpoint', 'registration_endpoint', 'introspection_endpoint'];
  const method = posted.includes(name) || name === 'pushed_authorization_request_endpoint' ? 'POST' : 'GET';
  return fetch(url, {
    method,
    redirect: 'manual',
    ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' } : {}),
  });
}

describe('item 12: every advertised address is served', () => {
  it('answers every URL of the discovery documents with something other than a 404', async ({ server }) => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = (await (await fetch(server.url + path)).json()) as Record<string, unknown>;
      expect(metadata.issuer).toBe(server.url);
      expect(metadata).not.toHaveProperty('end_session_endpoint');
      expect(metadata).not.toHaveProperty('pushed_authorization_request_endpoint');
      const urls = Object.entries(metadata).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].startsWith('http'),
      );
      expect(urls.length).toBeGreaterThan(4);
      for (const [name, url] of urls) {
        const reply = name === 'issuer' ? await fetch(`${url}${path}`) : await probe(name, url);
        expect(reply.status, `${path} ${name} ${url}`).not.toBe(404);
        expect(reply.status, `${path} ${name} ${url}`).toBeLessThan(500);
      }
    }
  });

  it('answers the protected-resource documents: their servers publish metadata, their resources challenge', async ({
    server,
  }) => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
      const document = (await (await fetch(server.url + path)).json()) as { resource: string; authorization_servers: string[] };
      for (const issuer of document.authorization_servers) {
        expect((await fetch(`${issuer}/.well-known/oauth-authorization-server`)).status).toBe(200);
      }
      const isMcp = document.resource.endsWith('/mcp');
      const reply = await fetch(isMcp ? document.resource : `${document.resource}/me`, {
        method: isMcp ? 'POST' : 'GET',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        ...(isMcp ? { body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) } : {}),
      });
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toContain(`resource_metadata="${server.url}${path}"`);
    }
  });

  it('serves the registration_client_uri it hands out (RFC 7592 read) to the holder of the registration token', async ({
    server,
  }) => {
    const registered = await registerRaw(server, { client_name: 'Reader' });
    expect(registered.status).toBe(201);
    const uris = Object.entries(registered.body).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].startsWith('http'),
    );
    expect(uris.map(([name]) => name)).toContain('registration_client_uri');
    for (const [name, uri] of uris) {
      if (name === 'registration_client_uri') continue;
      expect((await fetch(uri)).status, name).not.toBe(404);
    }
    const clientUri = String(registered.body.registration_client_uri);
    const read = await fetch(clientUri, { headers: bearer(String(registered.body.registration_access_token)) });
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ client_id: registered.body.client_id, client_name: 'Reader' });
    // Without its registration token, or with another client's, it is refused, never shown.
    expect((await fetch(clientUri)).status).toBe(401);
    const other = await registerRaw(server, { client_name: 'Other' });
    expect((await fetch(clientUri, { headers: bearer(String(other.body.registration_access_token)) })).status).toBe(401);
  });
});

function challenge(server: TestServer, description?: string): string {
  const error = description === undefined ? '' : ` error="invalid_token", error_description="${description}",`;
  return `Bearer realm="skillet",${error} resource_metadata="${server.url}/.well-known/oauth-protected-resource"`;
}

describe('item 13: a refused credential on /api/v1 gets a Bearer challenge', () => {
  it('challenges a request with no credential without an error attribute, keeping the body', async ({ server, api }) => {
    const reply = await api.get('/api/v1/me');
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Missing auth token' } });
    expect(reply.headers.get('www-authenticate')).toBe(challenge(server));
  });

  it('challenges a bad, an API-key-shaped and a non-bearer Authorization with invalid_token', async ({ server, api }) => {
    for (const token of ['not-a-token', 'sklt_live_0000000000000000000000000000']) {
      const reply = await api.get('/api/v1/me', { headers: bearer(token) });
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid auth token' } });
      expect(reply.headers.get('www-authenticate')).toBe(challenge(server, 'Invalid auth token'));
    }
    // What the client sent never reaches the header: the description is the server's own message.
    const quoting = await api.get('/api/v1/me', { headers: bearer('a"b\\c,error="none"') });
    expect(quoting.headers.get('www-authenticate')).toBe(challenge(server, 'Invalid auth token'));
    // Another scheme is not a bearer token at all (RFC 6750 3.1: no error code then).
    const basic = await api.get('/api/v1/me', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toBe(challenge(server));
  });

  it('challenges an expired and a wrong-audience access token with invalid_token', async ({ server, api }) => {
    const person = await signUp(api);
    const config = await register(server);
    const mcp = `${server.url}/mcp`;
    const { url, verifier } = await authorizationUrl(config, { resource: mcp });
    const callback = await throughThePages(server, url, person, { resource: mcp });
    const forMcp = await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier }, { resource: mcp });
    const wrongAudience = await api.get('/api/v1/me', { headers: bearer(forMcp.access_token) });
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.headers.get('www-authenticate')).toBe(challenge(server, 'Invalid auth token'));

    const rest = await authorizationUrl(config);
    const restCallback = await throughThePages(server, rest.url, person);
    const tokens = await oauth.authorizationCodeGrant(config, restCallback, { pkceCodeVerifier: rest.verifier });
    server.clock.advance(3601_000);
    try {
      const expired = await api.get('/api/v1/me', { headers: bearer(tokens.access_token) });
      expect(expired.status).toBe(401);
      expect(expired.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid auth token' } });
      expect(expired.headers.get('www-authenticate')).toBe(challenge(server, 'Invalid auth token'));
    } finally {
      server.clock.advance(-3601_000);
    }
  });

  it('challenges a bad x-api-key or x-auth-token without an error attribute: they are not bearer tokens', async ({
    server,
    api,
  }) => {
    const key = await api.get('/api/v1/me', { headers: { 'x-api-key': 'sklt_live_nope' } });
    expect(key.status).toBe(401);
    expect(key.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid API key' } });
    expect(key.headers.get('www-authenticate')).toBe(challenge(server));
    const token = await api.get('/api/v1/me', { headers: { 'x-auth-token': 'nope' } });
    expect(token.status).toBe(401);
    expect(token.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid auth token' } });
    expect(token.headers.get('www-authenticate')).toBe(challenge(server));
  });

  it('leaves good credentials as they were, and gives /mcp the same challenge, naming its own resource', async ({
    server,
    api,
  }) => {
    const person = await signUp(api);
    const key = await createKey(api, person);
    const ok = await api.get('/api/v1/me', { headers: { 'x-api-key': key.key } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('www-authenticate')).toBeNull();
    const mcp = await fetch(`${server.url}/mcp`, { method: 'POST', headers: bearer('not-a-token') });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toBe(
      `Bearer realm="skillet", error="invalid_token", error_description="Invalid auth token", resource_metadata="${server.url}/.well-known/oauth-protected-resource/mcp"`,
    );
  });
});

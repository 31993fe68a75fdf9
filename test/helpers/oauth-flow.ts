import * as oauth from 'openid-client';
import { expect } from 'vitest';
import type { TestUser } from './factories.js';
import { Browser, formOf, workspaceOptions } from './oauth-browser.js';
import type { TestServer } from './server.js';

export const REDIRECT = 'http://127.0.0.1:9/callback';
/** openid-client refuses plain http unless told; the test server is http on 127.0.0.1. */
export const INSECURE = { execute: [oauth.allowInsecureRequests], algorithm: 'oauth2' as const };

/** A client registered through RFC 7591 dynamic registration: public (PKCE alone) or confidential. */
export async function register(server: TestServer, kind: 'public' | 'confidential' = 'public'): Promise<oauth.Configuration> {
  const metadata = {
    client_name: 'Test <App>',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: kind === 'public' ? 'none' : 'client_secret_post',
  };
  return oauth.dynamicClientRegistration(new URL(server.url), metadata, kind === 'public' ? oauth.None() : undefined, INSECURE);
}

export interface AuthorizeOptions {
  resource?: string;
  workspace?: string;
  decision?: 'allow' | 'deny';
  scope?: string;
}

export interface Authorized {
  /** Where the server sent the browser back to the client. */
  callback: URL;
  code: string;
  verifier: string;
  state: string;
}

/** An authorization request's URL with PKCE (S256), asking for read and write unless `extra` says otherwise. */
export async function authorizationUrl(config: oauth.Configuration, extra: Record<string, string> = {}) {
  const verifier = oauth.randomPKCECodeVerifier();
  const url = oauth.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT,
    scope: 'read write',
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  });
  return { url, verifier };
}

/** An authorization request with PKCE, driven through the sign-in and consent pages. */
export async function authorize(
  server: TestServer,
  config: oauth.Configuration,
  person: TestUser,
  options: AuthorizeOptions = {},
): Promise<Authorized> {
  const state = oauth.randomState();
  const { url, verifier } = await authorizationUrl(config, {
    scope: options.scope ?? 'read write',
    state,
    resource: options.resource ?? `${server.url}/api/v1`,
  });
  const callback = await throughThePages(server, url, person, options);
  return { callback, code: callback.searchParams.get('code') ?? '', verifier, state };
}

/**
 * Signs in and answers the consent page for an authorization URL, as a browser would (no
 * redirect followed by itself, the pages' forms and cookies), and returns where the server
 * sent the browser back to the client.
 */
export async function throughThePages(
  server: TestServer,
  url: URL,
  person: TestUser,
  options: Pick<AuthorizeOptions, 'workspace' | 'decision' | 'resource'> = {},
  browser = new Browser(server.url),
): Promise<URL> {
  const signInPage = await browser.follow(await browser.request(url.href));
  expect(signInPage.status).toBe(200);
  const signIn = await formOf(signInPage);
  expect(signIn.html).toContain('<label for="email">Email</label>');
  expect(signIn.html).toContain('<label for="password">Password</label>');
  expect(signIn.html).toContain('>Sign in</button>');
  const consentPage = await browser.follow(
    await browser.request(signIn.action, { form: { email: person.email, password: person.password } }),
  );
  expect(consentPage.status).toBe(200);
  const consent = await formOf(consentPage);
  expect(consent.html).toContain('Test &lt;App&gt;');
  expect(consent.html).toContain(options.resource?.endsWith('/mcp') ? 'on Skillet over MCP.' : 'on the Skillet API.');
  expect(consent.html).toContain('>Allow</button>');
  expect(consent.html).toContain('>Deny</button>');
  expect(workspaceOptions(consent.html).get(person.user.personalWorkspaceId)).toBe('Personal');
  const decided = await browser.follow(
    await browser.request(consent.action, {
      form: { decision: options.decision ?? 'allow', workspace: options.workspace ?? person.user.personalWorkspaceId },
    }),
  );
  expect(decided.status).toBe(303);
  return new URL(decided.headers.get('location') ?? '');
}

/** A raw token request, form-encoded unless `json`, to see the status and body as sent. */
export async function tokenRequest(
  server: TestServer,
  fields: Record<string, string>,
  json = false,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: json ? JSON.stringify(fields) : new URLSearchParams(fields).toString(),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

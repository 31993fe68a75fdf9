import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { describe, expect, onTestFinished } from 'vitest';
import { grantSiteLicense } from '../../helpers/billing.js';
import { signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { bearer, REDIRECT, throughThePages } from '../../helpers/oauth-flow.js';
import type { TestServer } from '../../helpers/server.js';

const it = withServer();

/** An editor's OAuth state, kept in memory: what the MCP SDK asks its provider to hold. */
class MemoryProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;

  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return { client_name: 'Test <App>', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

async function connect(server: TestServer, provider: MemoryProvider) {
  const client = new Client({ name: 'OAuth Editor', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider });
  await client.connect(transport);
  onTestFinished(() => client.close());
  return client;
}

describe('an MCP client with OAuth', () => {
  it('is sent to discovery by the 401, registers, passes the pages and calls a tool with its token', async ({ server, api }) => {
    const person = await signUp(api);
    await grantSiteLicense(server, person.user.id);
    const provider = new MemoryProvider();

    // No credential: the SDK follows the 401's resource metadata to the authorization server.
    const first = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { authProvider: provider });
    await expect(new Client({ name: 'OAuth Editor', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.client?.client_id).toBeDefined();
    const url = provider.authorizationUrl;
    if (!url) throw new Error('the SDK did not ask for an authorization');
    expect(url.origin + url.pathname).toBe(`${server.url}/oauth/authorize`);
    expect(url.searchParams.get('resource')).toBe(`${server.url}/mcp`);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');

    const callback = await throughThePages(server, url, person, { resource: `${server.url}/mcp` });
    await first.finishAuth(callback.searchParams.get('code') ?? '');
    const access = provider.saved?.access_token ?? '';
    expect(provider.saved?.refresh_token).toBeDefined();

    const client = await connect(server, provider);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('get_balance');
    const balance = await client.callTool({ name: 'get_balance', arguments: {} });
    expect(balance.isError).toBeFalsy();

    // The token is for /mcp: the REST API does not take it.
    expect((await api.get('/api/v1/me', { headers: bearer(access) })).status).toBe(401);
  });
});

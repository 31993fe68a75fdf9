import { once } from 'node:events';
import * as oauth from 'openid-client';
import { describe, expect } from 'vitest';
import WebSocket from 'ws';
import { isCredentialLive } from '../../../src/identity/credential-strategies.js';
import { signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client as Api } from '../../helpers/http.js';
import { authorize, bearer, register } from '../../helpers/oauth-flow.js';
import type { TestServer } from '../../helpers/server.js';

const it = withServer();

async function tokens(server: TestServer, api: Api) {
  const config = await register(server);
  const { callback, verifier, state } = await authorize(server, config, await signUp(api));
  return {
    config,
    tokens: await oauth.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state }),
  };
}

async function subscribeUrl(api: Api, token: string): Promise<string> {
  const reply = await api.get<{ url: string }>('/api/v1/events/subscribe-url', { headers: bearer(token) });
  expect(reply.status).toBe(200);
  return reply.body.url;
}

describe('signed URLs made with an OAuth token', () => {
  it('open a control-plane socket, which revoking the token closes; the URL is refused afterwards', async ({ server, api }) => {
    const { config, tokens: issued } = await tokens(server, api);
    const url = await subscribeUrl(api, issued.access_token);
    const socket = new WebSocket(url);
    await once(socket, 'open');
    const closed = once(socket, 'close');
    await oauth.tokenRevocation(config, issued.access_token);
    const [code, reason] = await closed;
    expect([code, String(reason)]).toEqual([4401, 'credential revoked']);

    const again = new WebSocket(url);
    const [error] = await once(again, 'error');
    expect(String(error)).toContain('401');
  });

  it('stay live past the access token while the grant has a refresh token, not past both', async ({ server, api }) => {
    const { tokens: issued } = await tokens(server, api);
    const me = await api.get<{ credential: { id: string }; workspace: { id: string } }>('/api/v1/me', {
      headers: bearer(issued.access_token),
    });
    const ref = { kind: 'oauth' as const, credentialId: me.body.credential.id, workspaceId: me.body.workspace.id };
    const ctx = { db: server.db.db, clock: server.clock };
    expect(await isCredentialLive(ctx, ref)).toBe(true);
    const hour = 3601_000;
    const month = 31 * 24 * 3600_000;
    try {
      server.clock.advance(hour);
      expect(await isCredentialLive(ctx, ref)).toBe(true);
      server.clock.advance(month);
      expect(await isCredentialLive(ctx, ref)).toBe(false);
    } finally {
      server.clock.advance(-hour - month);
    }
  });
});

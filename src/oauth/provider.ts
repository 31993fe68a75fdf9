import Provider, { type Configuration, errors } from 'oidc-provider';
import type { AppContext } from '../context.js';
import { OAUTH_SCOPES, resourceOfUrl, resourceUrl } from '../identity/oauth-resources.js';
import { findUser } from '../identity/users.js';
import { databaseAdapter } from './adapter.js';
import { BOUNDED_CLIENT_METADATA, validateClientMetadata } from './client-metadata.js';
import { oauthCookieKeys, oauthSigningKey } from './keys.js';
import { OAUTH_PAGE_HEADERS, oauthProblemPage, oauthProblemWords } from './oauth-pages.js';

const HOUR = 3600;
const DAY = 24 * HOUR;

/** Where oidc-provider sends a person to sign in and consent (oauth-pages.routes.ts serves it). */
function interactionPath(uid: string): string {
  return `/oauth/interaction/${uid}`;
}

/**
 * The OAuth 2.1 authorization server (DESIGN §11): oidc-provider, configured down to what
 * Skillet offers. Authorization code with PKCE (S256, required of every client), refresh
 * tokens rotated and issued without `offline_access`, and opaque access tokens bound to one
 * resource, MCP or the REST API.
 */
export function createOAuthProvider(ctx: Pick<AppContext, 'db' | 'clock' | 'config'>): Provider {
  const { publicUrl, signingSecret } = ctx.config;
  const configuration: Configuration = {
    adapter: (model: string) => databaseAdapter(ctx, model),
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      revocation: '/oauth/revoke',
      registration: '/oauth/register',
      jwks: '/oauth/jwks',
      userinfo: '/oauth/userinfo',
      introspection: '/oauth/introspect',
    },
    jwks: { keys: [oauthSigningKey(signingSecret)] },
    cookies: { keys: oauthCookieKeys(signingSecret) },
    enabledJWA: { idTokenSigningAlgValues: ['EdDSA'] },
    responseTypes: ['code'],
    scopes: ['openid', ...OAUTH_SCOPES],
    claims: { openid: ['sub'] },
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      id_token_signed_response_alg: 'EdDSA',
      token_endpoint_auth_method: 'client_secret_basic',
    },
    // Public clients (`none`) too: PKCE is what protects their codes.
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      // Not offered (issue 25, items 11 and 12): a DPoP-bound token would need every resource
      // server to check proofs, third parties have no Skillet sign-in session to end, and
      // pushed authorization requests are an endpoint nothing of ours needs.
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      revocation: { enabled: true },
      // Our access tokens are for MCP and the REST API, not for an OpenID userinfo endpoint.
      userinfo: { enabled: false },
      resourceIndicators: {
        enabled: true,
        // A request that names no resource gets a token for the REST API (the SPEC's flow).
        defaultResource: () => resourceUrl(publicUrl, 'api'),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (!resourceOfUrl(publicUrl, indicator)) throw new errors.InvalidTarget();
          return { scope: OAUTH_SCOPES.join(' '), audience: indicator, accessTokenTTL: HOUR, accessTokenFormat: 'opaque' };
        },
      },
    },
    // A refresh token for every client allowed the grant, without asking for offline_access.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    // Tokens outlive the browser's sign-in session: they are bound to their grant (and so to
    // its workspace), and a later consent in that browser, which may make a new grant, must
    // not cut off the refresh tokens of the earlier one.
    expiresWithSession: () => false,
    // What a client registers is bounded: its name and URIs are shown to people and stored.
    extraClientMetadata: { properties: [...BOUNDED_CLIENT_METADATA], validator: validateClientMetadata },
    ttl: {
      AccessToken: HOUR,
      AuthorizationCode: 60,
      RefreshToken: 30 * DAY,
      Grant: 30 * DAY,
      Interaction: HOUR,
      Session: 14 * DAY,
      IdToken: HOUR,
    },
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
    // The errors it shows a person (rather than sends to a client's redirect_uri, such as
    // an unregistered redirect_uri) look like our other pages; the status is its own.
    renderError(koa, out) {
      koa.set(OAUTH_PAGE_HEADERS);
      koa.type = 'text/html; charset=utf-8';
      koa.body = oauthProblemPage(
        oauthProblemWords(out.error),
        out.error_description ? `${out.error}: ${out.error_description}` : out.error,
      );
    },
    async findAccount(_ctx, sub) {
      const user = await findUser(ctx, sub);
      return user ? { accountId: user.id, claims: () => ({ sub: user.id }) } : undefined;
    },
  };
  const provider = new Provider(publicUrl, configuration);
  // Behind a proxy that terminates TLS, cookies and URLs follow X-Forwarded-Proto.
  provider.proxy = ctx.config.trustProxy;
  return provider;
}

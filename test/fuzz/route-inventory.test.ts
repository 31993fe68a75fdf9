import { expect } from 'vitest';
import { withApp } from '../helpers/fixtures.js';
import { type OpenApiDocument, operationsOf } from './openapi-document.js';

/**
 * The fuzzer derives its requests from /openapi.json (api.test.ts fuzzes every operation
 * there and checks that it did). These routes are not in the document, so it cannot
 * derive requests for them: each is listed with why, and where it is tested instead. A
 * route added to the server must be documented or added here, or the count below fails.
 */
const NOT_DOCUMENTED: Record<string, string> = {
  'GET /': 'a redirect to the web app',
  'GET /app': "the web app's static files (HTML and assets, not JSON): e2e tests",
  'GET /app/*': "the web app's static files: e2e tests",
  'GET /api/v1/app/session': "the web app's own cookie sign-in, under the CSRF rule, not the public API: app-session.test.ts",
  'POST /api/v1/app/signup': "the web app's own cookie sign-in: app-session.test.ts",
  'POST /api/v1/app/login': "the web app's own cookie sign-in: app-session.test.ts",
  'POST /api/v1/app/logout': "the web app's own cookie sign-in: app-session.test.ts",
  'GET /api/v1/billing/return/:outcome': 'where a checkout sends the browser back: a redirect, billing.test.ts',
  'POST /api/v1/billing/webhook':
    "the payment provider's callback, refused unless signed with its secret: billing-webhook.test.ts",
  'GET /docs': 'the getting-started guide (HTML): docs.test.ts',
  'GET /docs/*': 'the guide to writing a skill, and a page in words for any other docs address (HTML): docs.test.ts',
  'GET /docs/api': 'the API reference page (Swagger UI, HTML): api-reference.test.ts',
  'GET /docs/api/': 'the API reference page (Swagger UI, HTML): api-reference.test.ts',
  'GET /docs/api/static/index.html': "the API reference page's files",
  'GET /docs/api/static/swagger-initializer.js': "the API reference page's files",
  'GET /docs/api/static/*': "the API reference page's files",
  'GET /docs/api/json': 'the OpenAPI document again, for the reference page: /openapi.json is its source',
  'GET /docs/api/yaml': 'the OpenAPI document as YAML, for the reference page',
  'GET /activate': 'the verification page (HTML): verification-page.test.ts',
  'GET /activate/style.css': "the verification page's style sheet",
  'POST /activate/review': 'a form post of the verification page (HTML): verification-page.test.ts',
  'POST /activate/decision': 'a form post of the verification page (HTML): verification-page.test.ts',
  'GET /agents/connect/:requestId': 'the consent page (HTML): agent-connect-page.test.ts',
  'POST /agents/connect/:requestId/review': 'a form post of the consent page (HTML): agent-connect-page.test.ts',
  'POST /agents/connect/:requestId/decision': 'a form post of the consent page (HTML): agent-connect-page.test.ts',
  'GET /billing/checkout/:sessionId': 'the local test-mode checkout page (HTML): billing.test.ts',
  'POST /billing/checkout/:sessionId/pay': 'a form post of the local checkout page: billing.test.ts',
  'POST /billing/checkout/:sessionId/cancel': 'a form post of the local checkout page: billing.test.ts',
  'GET /public/:artifactId/*': "a published artifact's files, served as files: artifact-sharing.test.ts",
  'GET /events/ws': 'the control-plane websocket: an upgrade, not a request and answer; control-plane.test.ts',
  'GET /mcp': 'MCP, JSON-RPC with its own error objects: mcp.test.ts, oauth-mcp.test.ts',
  'POST /mcp': 'MCP, JSON-RPC with its own error objects: mcp.test.ts',
  'DELETE /mcp': 'MCP session end: mcp.test.ts',
  'GET /mcp/': 'MCP, with a trailing slash: mcp.test.ts',
  'POST /mcp/': 'MCP, with a trailing slash: mcp.test.ts',
  'DELETE /mcp/': 'MCP, with a trailing slash: mcp.test.ts',
  'GET /oauth/authorize': "the OAuth provider's own endpoint (RFC 6749 errors, not ours): oauth.test.ts, oauth-fuzz.test.ts",
  'POST /oauth/authorize': "the OAuth provider's own endpoint: oauth.test.ts",
  'GET /oauth/authorize/:uid': "the OAuth provider's own endpoint: oauth.test.ts",
  'POST /oauth/token': "the OAuth provider's own endpoint: oauth.test.ts, oauth-fuzz.test.ts",
  'POST /oauth/revoke': "the OAuth provider's own endpoint: oauth.test.ts",
  'POST /oauth/register': "the OAuth provider's dynamic client registration: oauth.test.ts, oauth-fuzz.test.ts",
  'GET /oauth/register/:clientId':
    "the OAuth provider's registration_client_uri (RFC 7592 read, its registration token): oauth-third-party.test.ts",
  'GET /oauth/jwks': "the OAuth provider's signing keys",
  'GET /oauth/interaction/:uid': 'the OAuth sign-in page (HTML): oauth-refusals.test.ts',
  'POST /oauth/interaction/:uid/login': 'a form post of the OAuth sign-in page: oauth-refusals.test.ts',
  'POST /oauth/interaction/:uid/confirm': 'a form post of the OAuth consent page: oauth-refusals.test.ts',
  'GET /openapi.json': 'the document itself: openapi.test.ts',
  'GET /.well-known/openid-configuration': 'OAuth discovery metadata: oauth.test.ts',
  'GET /.well-known/oauth-authorization-server': 'OAuth discovery metadata (RFC 8414): oauth.test.ts',
  'GET /.well-known/oauth-protected-resource': 'OAuth resource metadata (RFC 9728): oauth.test.ts',
  'GET /.well-known/oauth-protected-resource/mcp': 'OAuth resource metadata for /mcp: oauth-mcp.test.ts',
  'GET /healthz': "an operator's probe: ops-health.test.ts",
  'GET /readyz': "an operator's probe: ops-health.test.ts",
};

const it = withApp().extend(
  'document',
  { scope: 'file' },
  async ({ api }) => (await api.get<OpenApiDocument>('/openapi.json')).body,
);

/** Every method the router serves, counted from its route table (HEAD comes free with each GET). */
function servedMethods(table: string): number {
  return [...table.matchAll(/\(([A-Z, ]+)\)/g)]
    .flatMap((match) => match[1]?.split(', ') ?? [])
    .filter((method) => method !== 'HEAD').length;
}

it('lists every route the document leaves out, and only those', ({ server, document }) => {
  const documented = operationsOf(document);
  for (const entry of Object.keys(NOT_DOCUMENTED)) {
    const [method = '', url = ''] = entry.split(' ');
    expect(server.app.hasRoute({ method, url }), `${entry} is listed but not served`).toBe(true);
    const asDocumented = url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}');
    expect(
      documented.some((operation) => operation.id === `${method} ${asDocumented}`),
      `${entry} is documented`,
    ).toBe(false);
  }
  // The stream route is documented but served ahead of Fastify, so it is not in the router's table.
  const routed = documented.filter((operation) => operation.path !== '/executions/{executionId}/stream');
  const unaccounted =
    // The radix tree, not the flattened listing: that one folds wildcard routes under one `*`.
    servedMethods(server.app.printRoutes()) - routed.length - Object.keys(NOT_DOCUMENTED).length;
  expect(unaccounted, 'routes served that are neither in /openapi.json nor listed here').toBe(0);
});

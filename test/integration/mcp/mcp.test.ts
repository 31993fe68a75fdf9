import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { describe, expect, onTestFinished } from 'vitest';
import { checkoutBody, licensedKey } from '../../helpers/billing.js';
import { createKey, session, signUp, type TestUser } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { type Client as Api, client } from '../../helpers/http.js';
import { startServer, type TestServer } from '../../helpers/server.js';
import { echoFolder, installFolder } from '../../helpers/skill-folders.js';

const it = withServer({ RATE_LIMIT_EXECUTIONS_PER_MINUTE: '1000' });

const TOOLS = [
  'cancel_execution',
  'get_balance',
  'get_execution',
  'list_artifacts',
  'list_skills',
  'read_artifact',
  'run_skill',
  'upload_file',
];
const ACCEPT = 'application/json, text/event-stream';
const ARGUMENT_NAMES = [
  'skill_slug',
  'input',
  'files',
  'inline_files',
  'filename',
  'contentBase64',
  'executionId',
  'artifactId',
  'path',
  'limit',
  'offset',
];

/** A person in basedmode, bought through the local test-mode checkout, and a key of theirs made after. */
async function basedmodeKey(api: Api): Promise<{ person: TestUser; key: string }> {
  const person = await signUp(api);
  const started = await api.post<{ checkoutUrl: string }>('/api/v1/billing/subscribe', {
    body: checkoutBody(),
    headers: session(person),
  });
  expect(started.status).toBe(200);
  const paid = await fetch(`${started.body.checkoutUrl}/pay`, { method: 'POST', redirect: 'manual' });
  expect(paid.status).toBe(303);
  return { person, key: (await createKey(api, person)).key };
}

async function v1Client(url: string, headers: Record<string, string>, name = 'Test Editor') {
  const client = new ClientV1({ name, version: '1.0.0' });
  await client.connect(new TransportV1(new URL(url), { requestInit: { headers } }));
  onTestFinished(() => client.close());
  return client;
}

/** The v2 client, on the 2026-07-28 revision when `modern` (its default is still the 2025 handshake). */
async function v2Client(url: string, headers: Record<string, string>, modern = false, name = 'Other Editor 2') {
  const client = new ClientV2({ name, version: '2.0.0' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(new TransportV2(new URL(url), { requestInit: { headers } }));
  onTestFinished(() => client.close());
  return client;
}

/** One JSON-RPC request over plain HTTP, as a 2025 client sends it after initialize. */
function rpc(server: TestServer, headers: Record<string, string>, body: string, path = '/mcp') {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': '2025-06-18', ...headers },
    body,
  });
}

const balanceCall = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'get_balance', arguments: {} },
});

interface Structured {
  executionId: string;
  status: string;
  stopReason: string | null;
  cost: number;
  artifactIds: string[];
}

/** run_skill's structuredContent, checked for its fields. */
function structuredOf(result: object): Structured {
  const value = 'structuredContent' in result ? result.structuredContent : undefined;
  expect(value).toMatchObject({ executionId: expect.any(String), artifactIds: expect.any(Array) });
  return value as Structured;
}

/** The text blocks of a tool result, joined. */
function textOf(result: object): string {
  const blocks: unknown[] = 'content' in result && Array.isArray(result.content) ? result.content : [];
  return blocks
    .map((block) =>
      typeof block === 'object' && block !== null && 'text' in block && typeof block.text === 'string' ? block.text : '',
    )
    .join('\n');
}

describe('the v1 SDK client (what most editors ship) with x-api-key', () => {
  it('lists the tools, runs ticker with progress notifications, and reads the balance', async ({ server, api }) => {
    const { person, key } = await basedmodeKey(api);
    const client = await v1Client(`${server.url}/mcp/`, { 'x-api-key': key });
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOLS);

    // The workspace's own skills are listed too, marked as its own.
    expect((await installFolder(api, person, 'my-echo', await echoFolder())).status).toBe(201);
    const skills = await client.callTool({ name: 'list_skills', arguments: {} });
    expect(JSON.stringify(skills.structuredContent)).toContain('"slug":"ticker"');
    const listed = (skills.structuredContent as { skills: { slug: string; source: string }[] }).skills;
    expect(listed.find((skill) => skill.slug === 'my-echo')?.source).toBe('workspace');

    const progress: { progress: number; message?: string }[] = [];
    const run = await client.callTool({ name: 'run_skill', arguments: { skill_slug: 'ticker', input: '3 50' } }, undefined, {
      onprogress: (update) => progress.push(update),
    });
    expect(run.isError).toBeFalsy();
    const structured = structuredOf(run);
    expect(structured).toEqual({
      executionId: expect.any(String),
      status: 'completed',
      stopReason: 'end_turn',
      cost: 0,
      artifactIds: expect.any(Array),
      webUrl: `${server.url}/app/runs/${structured.executionId}`,
    });
    expect(textOf(run)).toContain('tick 3 of 3');
    // The run's page in the app, for the person the assistant works for.
    expect(textOf(run)).toContain(`Run page: ${server.url}/app/runs/${structured.executionId}`);
    const ticks = progress.filter((update) => update.message?.startsWith('tick '));
    expect(ticks.map((update) => update.message)).toEqual(['tick 1 of 3', 'tick 2 of 3', 'tick 3 of 3']);
    // Progress only ever goes up.
    expect(progress.map((update) => update.progress)).toEqual(
      [...progress.map((update) => update.progress)].sort((a, b) => a - b),
    );

    // A 2025 stateless request says nothing of its client after initialize: plain `mcp`.
    const history = await api.get<{ items: { executionId: string; interface: string }[] }>('/api/v1/executions', {
      headers: session(person),
    });
    expect(history.body.items.find((item) => item.executionId === structured.executionId)?.interface).toBe('mcp');

    const execution = await client.callTool({ name: 'get_execution', arguments: { executionId: structured.executionId } });
    expect(execution.structuredContent).toMatchObject({
      executionId: structured.executionId,
      status: 'completed',
      skillSlug: 'ticker',
    });

    const balance = await client.callTool({ name: 'get_balance', arguments: {} });
    expect(balance.structuredContent).toEqual({ balance: expect.any(Number), totalSpent: 0, canExecute: true, isAdmin: false });
  });
});

describe('a key narrowed to read by scoped consent', () => {
  it('reaches the reading tools on /mcp, and is refused run_skill and cancel_execution', async ({ server, api }) => {
    const { person, key } = await basedmodeKey(api);
    const asked = await api.post<{ requestId: string }>('/api/v1/agents/connect', {
      body: { scopes: ['read'] },
      headers: { 'x-api-key': key },
    });
    expect(asked.status).toBe(202);
    const approved = await api.post(`/api/v1/agents/connect/${asked.body.requestId}/approve`, { headers: session(person) });
    expect(approved.status).toBe(200);

    const client = await v1Client(`${server.url}/mcp`, { 'x-api-key': key });
    const balance = await client.callTool({ name: 'get_balance', arguments: {} });
    expect(balance.isError).toBeFalsy();
    const run = await client.callTool({ name: 'run_skill', arguments: { skill_slug: 'ticker', input: '1 1' } });
    expect(run.isError).toBe(true);
    expect(textOf(run)).toContain('does not have the write scope');
    const cancel = await client.callTool({ name: 'cancel_execution', arguments: { executionId: 'nope' } });
    expect(textOf(cancel)).toContain('does not have the write scope');
  });
});

describe('read_artifact', () => {
  it("names a file by its encoded address when its path has spaces or '#'", async ({ server, api }) => {
    const { key } = await basedmodeKey(api);
    const client = await v1Client(`${server.url}/mcp`, { 'x-api-key': key });
    const files = [
      { path: 'notes/my file #1.txt', text: 'one' },
      { path: 'b.txt', text: 'two' },
    ];
    const run = await client.callTool({
      name: 'run_skill',
      arguments: { skill_slug: 'writer', input: JSON.stringify({ files }) },
    });
    const [artifactId] = structuredOf(run).artifactIds;
    const read = await client.callTool({ name: 'read_artifact', arguments: { artifactId, path: 'notes/my file #1.txt' } });
    expect(JSON.stringify(read.content)).toContain(`/api/v1/artifacts/${artifactId}/file/notes/my%20file%20%231.txt`);
  });
});

describe('the v2 SDK client with Authorization: Bearer <API key>', () => {
  it('on the 2026-07-28 revision: runs text-stats, gets a resource_link to its artifact, and reads it', async ({
    server,
    api,
  }) => {
    const { person, key } = await licensedKey(server, api);
    const client = await v2Client(`${server.url}/mcp`, { authorization: `Bearer ${key}` }, true);
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(TOOLS);

    const run = await client.callTool({
      name: 'run_skill',
      arguments: { skill_slug: 'text-stats', input: 'One fish. Two fish.' },
    });
    expect(run.isError).toBeFalsy();
    const structured = structuredOf(run);
    expect(structured).toMatchObject({ status: 'completed', stopReason: 'end_turn', cost: 0 });
    expect(structured.artifactIds).toHaveLength(1);
    const artifactId = structured.artifactIds[0] as string;
    const links = (run.content ?? []).filter((block) => block.type === 'resource_link');
    expect(links).toEqual([
      expect.objectContaining({
        type: 'resource_link',
        uri: `${server.url}/api/v1/artifacts/${artifactId}/download`,
        mimeType: 'application/json',
      }),
    ]);

    const read = await client.callTool({ name: 'read_artifact', arguments: { artifactId } });
    expect(read.structuredContent).toMatchObject({ id: artifactId, skillSlug: 'text-stats' });
    const main = (read.content ?? []).find((block) => block.type === 'resource');
    expect(main).toMatchObject({ resource: { mimeType: 'application/json', text: expect.stringContaining('"words"') } });

    const file = await client.callTool({ name: 'read_artifact', arguments: { artifactId, path: 'stats.json' } });
    expect(file.content?.[0]).toMatchObject({ type: 'resource', resource: { text: expect.stringContaining('"words"') } });
    const missing = await client.callTool({ name: 'read_artifact', arguments: { artifactId, path: 'nope.txt' } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/^NOT_FOUND: /);

    const listed = await client.callTool({ name: 'list_artifacts', arguments: { limit: 5 } });
    expect(listed.structuredContent).toMatchObject({
      total: 1,
      limit: 5,
      offset: 0,
      hasMore: false,
      items: [{ id: artifactId }],
    });

    const history = await api.get<{ items: { executionId: string; interface: string }[] }>('/api/v1/executions', {
      headers: session(person),
    });
    // The 2026 revision declares the client on every request.
    expect(history.body.items.find((item) => item.executionId === structured.executionId)?.interface).toMatch(
      /^mcp(-other-editor-2)?$/,
    );
  });

  it('cancels a run another request started', async ({ server, api }) => {
    const { key } = await licensedKey(server, api);
    const client = await v2Client(`${server.url}/mcp`, { authorization: `Bearer ${key}` });
    const progress: string[] = [];
    let executionId = '';
    const running = client.callTool(
      { name: 'run_skill', arguments: { skill_slug: 'ticker', input: '100 100' } },
      { onprogress: (update) => progress.push(update.message ?? '') },
    );
    // The run is the workspace's only working execution: find it through the REST history.
    await expect.poll(() => progress.length, { timeout: 10_000 }).toBeGreaterThan(1);
    const apiHeaders = { 'x-api-key': key };
    const history = await api.get<{ items: { executionId: string; status: string }[] }>('/api/v1/executions', {
      headers: apiHeaders,
    });
    executionId = history.body.items.find((item) => item.status === 'working')?.executionId ?? '';
    const cancelled = await client.callTool({ name: 'cancel_execution', arguments: { executionId } });
    expect(cancelled.structuredContent).toMatchObject({ success: true });
    const result = await running;
    expect(result.structuredContent).toMatchObject({ executionId, status: 'idle', stopReason: 'interrupt' });
  });
});

describe('who may use MCP', () => {
  it('refuses a paygmode key with 403 FORBIDDEN, over raw HTTP and through both clients', async ({ server, api }) => {
    const person = await signUp(api);
    const { key } = await createKey(api, person);
    const reply = await rpc(server, { 'x-api-key': key }, balanceCall);
    expect(reply.status).toBe(403);
    expect(await reply.json()).toEqual({
      error: { code: 'FORBIDDEN', message: expect.stringContaining('part of the Based subscription') },
    });
    expect(reply.headers.get('x-ratelimit-limit')).toBe('60');
    await expect(v1Client(`${server.url}/mcp/`, { 'x-api-key': key })).rejects.toThrow(/403|Based subscription/);
    await expect(v2Client(`${server.url}/mcp`, { authorization: `Bearer ${key}` })).rejects.toThrow(/403|Based subscription/);
  });

  it('answers 401 with a WWW-Authenticate that points at OAuth discovery, on /mcp and /mcp/ alike', async ({ server }) => {
    const metadata = `resource_metadata="${server.config.publicUrl}/.well-known/oauth-protected-resource/mcp"`;
    // RFC 6750: the error is named only where a bearer token was sent and refused.
    const challenge = (refused?: string) =>
      `Bearer realm="skillet",${refused ? ` error="invalid_token", error_description="${refused}",` : ''} ${metadata}`;
    for (const [path, headers, message, expected] of [
      ['/mcp', {}, 'Missing auth token', challenge()],
      ['/mcp/', {}, 'Missing auth token', challenge()],
      ['/mcp', { 'x-api-key': 'sklt_live_nope' }, 'Invalid API key', challenge()],
      ['/mcp', { authorization: `Bearer sklt_live_${'a'.repeat(40)}` }, 'Invalid API key', challenge('Invalid API key')],
      ['/mcp', { authorization: 'Bearer some-oauth-token' }, 'Invalid auth token', challenge('Invalid auth token')],
    ] as const) {
      const reply = await rpc(server, headers, balanceCall, path);
      expect(reply.status, path).toBe(401);
      expect(reply.headers.get('www-authenticate')).toBe(expected);
      expect(reply.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
      expect(await reply.json()).toEqual({ error: { code: 'UNAUTHORIZED', message } });
    }
  });

  it("leaves /api/v1 as it was: a bearer API key there is still an invalid auth token, with the REST API's challenge", async ({
    server,
    api,
  }) => {
    const person = await signUp(api);
    const { key } = await createKey(api, person);
    const reply = await api.get('/api/v1/me', { headers: { authorization: `Bearer ${key}` } });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Invalid auth token' } });
    // Issue 25 item 13: every 401 there carries RFC 6750's challenge, naming the REST API's metadata, not MCP's.
    expect(reply.headers.get('www-authenticate')).toBe(
      `Bearer realm="skillet", error="invalid_token", error_description="Invalid auth token", resource_metadata="${server.url}/.well-known/oauth-protected-resource"`,
    );
  });

  it('refuses a browser Origin other than PUBLIC_URL, and takes its own', async ({ server, api }) => {
    const { key } = await basedmodeKey(api);
    const foreign = await rpc(server, { 'x-api-key': key, origin: 'https://evil.example' }, balanceCall);
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ error: { code: 'FORBIDDEN', message: expect.stringContaining('Origin') } });
    const garbage = await rpc(server, { 'x-api-key': key, origin: 'null' }, balanceCall);
    expect(garbage.status).toBe(403);
    const own = await rpc(server, { 'x-api-key': key, origin: new URL(server.config.publicUrl).origin }, balanceCall);
    expect(own.status).toBe(200);
  });
});

describe('limits', () => {
  it('allows 60 requests a minute per credential, with the headers on each, and refuses the 61st', async ({ server, api }) => {
    const { key } = await basedmodeKey(api);
    for (let i = 1; i <= 60; i++) {
      const reply = await rpc(server, { 'x-api-key': key }, balanceCall);
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-ratelimit-limit')).toBe('60');
      expect(reply.headers.get('x-ratelimit-remaining')).toBe(String(60 - i));
      await reply.arrayBuffer();
    }
    const refused = await rpc(server, { 'x-api-key': key }, balanceCall);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: { type: 'rate_limit_error', message: expect.any(String) } });
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // MCP has its own window: the same key's REST allowance is untouched.
    const rest = await api.get('/api/v1/me', { headers: { 'x-api-key': key } });
    expect(rest.status).toBe(200);
    expect(rest.headers.get('x-ratelimit-limit')).toBe('100');
    // And the client SDK sees the 61st call refused.
    await expect(v1Client(`${server.url}/mcp/`, { 'x-api-key': key })).rejects.toThrow(/429|rate/i);
    server.clock.advance(60_000);
    expect((await rpc(server, { 'x-api-key': key }, balanceCall)).status).toBe(200);
  });
});

describe('workspace scoping', () => {
  it("does not find another workspace's execution or artifact", async ({ server, api }) => {
    const owner = await licensedKey(server, api);
    const ownerClient = await v1Client(`${server.url}/mcp/`, { 'x-api-key': owner.key });
    const run = await ownerClient.callTool({ name: 'run_skill', arguments: { skill_slug: 'text-stats', input: 'mine alone' } });
    const { executionId, artifactIds } = structuredOf(run);

    const stranger = await licensedKey(server, api);
    const client = await v1Client(`${server.url}/mcp/`, { 'x-api-key': stranger.key });
    for (const [name, args] of [
      ['get_execution', { executionId }],
      ['cancel_execution', { executionId }],
      ['read_artifact', { artifactId: artifactIds[0] }],
      ['read_artifact', { artifactId: artifactIds[0], path: 'stats.json' }],
    ] as const) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, name).toBe(true);
      expect(textOf(result)).toMatch(/^NOT_FOUND: /);
    }
    const listed = await client.callTool({ name: 'list_artifacts', arguments: {} });
    expect(listed.structuredContent).toMatchObject({ items: [], total: 0 });
    const unknownSkill = await client.callTool({ name: 'run_skill', arguments: { skill_slug: 'no-such-skill', input: 'x' } });
    expect(textOf(unknownSkill)).toMatch(/^NOT_FOUND: /);
  });
});

describe('bad input', () => {
  it('never answers a malformed or hostile body with a 500', async ({ server, api }) => {
    const { key } = await basedmodeKey(api);
    const call = (args: unknown, name = 'run_skill') =>
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } });
    const bodies = [
      '',
      '{',
      'null',
      '[]',
      '42',
      '"text"',
      '{"jsonrpc":"2.0"}',
      '{"jsonrpc":"1.0","id":1,"method":"ping"}',
      '{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}',
      '{"jsonrpc":"2.0","id":1,"method":"no/such/method"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}',
      '[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]',
      '{"jsonrpc":"2.0","id":1,"result":{}}',
      '{"__proto__":{"x":1},"jsonrpc":"2.0","id":1,"method":"ping"}',
      call({ skill_slug: 5, input: 'x' }),
      call({ skill_slug: 'ticker' }),
      call({ skill_slug: 'ticker', input: 'x'.repeat(200_000) }),
      call({ executionId: 'x'.repeat(500) }, 'get_execution'),
      call({ limit: -1 }, 'list_artifacts'),
      call({ limit: 'ten' }, 'list_artifacts'),
      call({ artifactId: 'a', path: '../../etc/passwd' }, 'read_artifact'),
      call('not an object', 'get_balance'),
    ];
    for (const body of bodies) {
      const reply = await rpc(server, { 'x-api-key': key }, body);
      const text = await reply.text();
      expect(reply.status, `${body.slice(0, 80)} -> ${text.slice(0, 200)}`).toBeLessThan(500);
      expect(reply.headers.get('x-ratelimit-limit')).toBe('60');
      server.clock.advance(60_000);
    }
    // Protocol errors stay JSON-RPC: the SDK's parse error for a body that is not JSON.
    const unparsable = await rpc(server, { 'x-api-key': key }, '{');
    expect(unparsable.status).toBe(400);
    expect(await unparsable.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'garbage/%%']) {
      const reply = await rpc(server, { 'x-api-key': key, 'content-type': contentType }, balanceCall);
      expect(reply.status, contentType).toBeLessThan(500);
    }
    // MCP's bodies may carry 5 MB of inline files as base64; past that room, the standard 413.
    const tooLarge = await rpc(server, { 'x-api-key': key }, call({ skill_slug: 'ticker', input: 'x'.repeat(9 * 1024 * 1024) }));
    expect(tooLarge.status).toBe(413);
    expect(await tooLarge.json()).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: expect.any(String) } });
    expect(tooLarge.headers.get('x-ratelimit-limit')).toBe('60');
    for (const method of ['GET', 'DELETE', 'PUT']) {
      const reply = await fetch(`${server.url}/mcp`, { method, headers: { 'x-api-key': key, accept: ACCEPT } });
      expect(reply.status, method).toBeLessThan(500);
    }
  });
});

describe('random requests', () => {
  it('never get a 5xx; a refusal is our envelope or a JSON-RPC error', async ({ server, api }) => {
    const { key } = await basedmodeKey(api);
    const params = fc.oneof(
      fc.constant(undefined),
      fc.jsonValue({ maxDepth: 3 }),
      fc.record({
        name: fc.constantFrom(...TOOLS, 'nope', ''),
        arguments: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.dictionary(fc.constantFrom(...ARGUMENT_NAMES), fc.jsonValue())),
      }),
    );
    const message = fc.record(
      {
        jsonrpc: fc.constantFrom('2.0', '1.0', 2),
        id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.constant(null), fc.jsonValue({ maxDepth: 1 })),
        method: fc.constantFrom(
          'tools/call',
          'tools/list',
          'initialize',
          'ping',
          'server/discover',
          'notifications/initialized',
          'x',
        ),
        params,
      },
      { requiredKeys: [] },
    );
    const body = fc.oneof(
      message.map((value) => JSON.stringify(value)),
      fc.array(message, { maxLength: 3 }).map((value) => JSON.stringify(value)),
      fc.string({ maxLength: 100 }),
    );
    const headers = fc.record(
      {
        accept: fc.constantFrom(ACCEPT, 'application/json', 'text/event-stream', '*/*', 'garbage'),
        'content-type': fc.constantFrom('application/json', 'text/plain', 'application/json; charset=utf-8', 'x/y'),
        'mcp-protocol-version': fc.constantFrom('2025-06-18', '2025-11-25', '2026-07-28', '1999-01-01', 'x'),
        'mcp-session-id': fc.string({ maxLength: 20 }).filter((text) => !/[\r\n\0]/.test(text) && /^[\x20-\x7e]*$/.test(text)),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(body, headers, fc.constantFrom('/mcp', '/mcp/'), async (text, sent, path) => {
        server.clock.advance(60_000);
        const reply = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'x-api-key': key, ...sent }, body: text });
        const answer = await reply.text();
        expect(reply.status, `${text} ${JSON.stringify(sent)} -> ${answer.slice(0, 200)}`).toBeLessThan(500);
        expect(reply.headers.get('x-ratelimit-limit')).toBe('60');
        if (reply.status < 400 || !reply.headers.get('content-type')?.includes('json')) return;
        const parsed = JSON.parse(answer) as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } };
        expect(typeof parsed.error?.message).toBe('string');
        expect(parsed.jsonrpc === '2.0' ? typeof parsed.error?.code : parsed.error?.code).toEqual(
          parsed.jsonrpc === '2.0' ? 'number' : expect.any(String),
        );
      }),
      { numRuns: 150 },
    );
  });
});

describe('the rules REST runs by', () => {
  it('one run per workspace: a second run_skill while one runs is EXECUTION_RUNNING', async ({ server, api }) => {
    const { key } = await licensedKey(server, api);
    const client = await v1Client(`${server.url}/mcp/`, { 'x-api-key': key });
    let ticks = 0;
    const first = client.callTool({ name: 'run_skill', arguments: { skill_slug: 'ticker', input: '20 50' } }, undefined, {
      onprogress: () => {
        ticks += 1;
      },
    });
    await expect.poll(() => ticks, { timeout: 10_000 }).toBeGreaterThan(1);
    const second = await client.callTool({ name: 'run_skill', arguments: { skill_slug: 'ticker', input: '1 0' } });
    expect(second.isError).toBe(true);
    expect(textOf(second)).toMatch(/^EXECUTION_RUNNING: /);
    const { executionId } = structuredOf(await first);
    expect(executionId).toEqual(expect.any(String));
  });

  it('a run that fails says so, and delivers no artifact', async ({ server, api }) => {
    const { key } = await licensedKey(server, api);
    const mcp = await v1Client(`${server.url}/mcp/`, { 'x-api-key': key });
    const run = await mcp.callTool({ name: 'run_skill', arguments: { skill_slug: 'crashes', input: 'x' } });
    expect(run.isError).toBeFalsy();
    expect(structuredOf(run)).toMatchObject({ status: 'failed', stopReason: 'error', artifactIds: [] });
    expect(textOf(run)).toMatch(/^The run did not complete: status failed, stop reason error\./);
  });

  it('a client that goes away mid-run leaves the run going, to be looked up later', async ({ server, api }) => {
    const { key } = await licensedKey(server, api);
    const gone = new AbortController();
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'run_skill', arguments: { skill_slug: 'ticker', input: '10 50' }, _meta: { progressToken: 'p' } },
    });
    const reply = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, 'x-api-key': key },
      body: call,
      signal: gone.signal,
    });
    const reader = reply.body?.getReader();
    const first = new TextDecoder().decode((await reader?.read())?.value);
    expect(first).toContain('notifications/progress');
    gone.abort();
    const history = async () =>
      (await api.get<{ items: { status: string }[] }>('/api/v1/executions', { headers: { 'x-api-key': key } })).body.items;
    await expect.poll(async () => (await history())[0]?.status, { timeout: 10_000 }).toBe('completed');
  });

  it('run_skill counts against the execution-start limit, with REST starts by the same key', async () => {
    const server = await startServer({ RATE_LIMIT_EXECUTIONS_PER_MINUTE: '2' });
    onTestFinished(() => server.close());
    const api = client(server.url);
    const { key } = await licensedKey(server, api);
    const created = await api.post('/api/v1/executions', {
      body: { skill_slug: 'ticker', input: '1 0' },
      headers: { 'x-api-key': key },
    });
    expect(created.status).toBe(200);
    const mcp = await v1Client(`${server.url}/mcp/`, { 'x-api-key': key });
    expect((await mcp.callTool({ name: 'run_skill', arguments: { skill_slug: 'ticker', input: '1 0' } })).isError).toBeFalsy();
    const refused = await mcp.callTool({ name: 'run_skill', arguments: { skill_slug: 'ticker', input: '1 0' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(/^RATE_LIMITED: /);
  });
});

type Progress = () => void;

/** Closes a server while a client waits on a long run (`call` starts it): the close must not wait for the run. */
async function closesWhileWaiting(call: (server: TestServer, key: string, onprogress: Progress) => Promise<unknown>) {
  const server = await startServer();
  let closed = false;
  onTestFinished(async () => {
    if (!closed) await server.close();
  });
  const { key } = await licensedKey(server, client(server.url));
  let ticks = 0;
  // The client is not answered: its stream is cut, and what it does then (SDK clients try
  // to resume it) is its own affair. It is closed when the test ends.
  void call(server, key, () => {
    ticks += 1;
  }).catch(() => undefined);
  await expect.poll(() => ticks, { timeout: 10_000 }).toBeGreaterThan(1);
  const started = performance.now();
  await server.close();
  closed = true;
  expect(performance.now() - started).toBeLessThan(5000);
}

const longRun = { name: 'run_skill', arguments: { skill_slug: 'ticker', input: '1000 100' } };

describe('shutting down', () => {
  it('does not wait for a run a 2025 client is waiting on', async () => {
    await closesWhileWaiting(async (server, key, onprogress) =>
      (await v1Client(`${server.url}/mcp/`, { 'x-api-key': key })).callTool(longRun, undefined, { onprogress }),
    );
  });

  it('does not wait for a run a 2026-07-28 client is waiting on', async () => {
    await closesWhileWaiting(async (server, key, onprogress) =>
      (await v2Client(`${server.url}/mcp`, { 'x-api-key': key }, true)).callTool(longRun, { onprogress }),
    );
  });
});

describe('the server log', () => {
  it('holds no errors after all of the above: refusals are not failures', async ({ server }) => {
    const errors = server.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
  });
});

import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { licensedKey } from '../../helpers/billing.js';
import { withServer } from '../../helpers/fixtures.js';
import type { Client as Api } from '../../helpers/http.js';
import type { TestServer } from '../../helpers/server.js';

const it = withServer();

const ACCEPT = 'application/json, text/event-stream';
const REFUSED = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'Batches are not supported in this protocol revision; send one message per request.' },
};
const RATE_LIMITED = { error: { type: 'rate_limit_error', message: expect.any(String) } };

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const reads = (count: number, from = 1) =>
  Array.from({ length: count }, (_, i) => call(from + i, 'read_artifact', { artifactId: randomUUID() }));

function post(server: TestServer, key: string, body: unknown, revision?: string) {
  return fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'x-api-key': key,
      ...(revision ? { 'mcp-protocol-version': revision } : {}),
    },
    body: JSON.stringify(body),
  });
}

/** The JSON-RPC responses in an answer, whether sent as JSON or as server-sent events. */
async function responsesOf(reply: Response): Promise<{ id: unknown; result?: unknown; error?: unknown }[]> {
  const text = await reply.text();
  if (!reply.headers.get('content-type')?.startsWith('text/event-stream')) return [JSON.parse(text)].flat();
  return text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice('data: '.length)));
}

async function executionsOf(api: Api, key: string): Promise<unknown[]> {
  const history = await api.get<{ items: unknown[] }>('/api/v1/executions', { headers: { 'x-api-key': key } });
  return history.body.items;
}

describe('JSON-RPC batches on /mcp', () => {
  it('refuses a batch on a revision without batching, running none of it', async ({ server, api }) => {
    const { key } = await licensedKey(server, api);
    const runAndReads = [call(0, 'run_skill', { skill_slug: 'ticker', input: '1 1' }), ...reads(99)];
    for (const revision of ['2025-06-18', '2025-11-25', '2024-11-05']) {
      const reply = await post(server, key, runAndReads, revision);
      expect(reply.status, revision).toBe(400);
      expect(await reply.json()).toEqual(REFUSED);
      expect(reply.headers.get('x-ratelimit-limit')).toBe('60');
    }
    // The revision an initialize in the batch asks for, or a message's own claim, counts as the header would.
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const claimed = { ...call(2, 'get_balance', {}), params: { ...call(2, 'get_balance', {}).params, _meta: {} } };
    claimed.params._meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
    for (const batch of [
      [initialize, call(2, 'get_balance', {})],
      [claimed, call(3, 'get_balance', {})],
    ]) {
      const reply = await post(server, key, batch);
      expect(reply.status).toBe(400);
      expect(await reply.json()).toEqual(REFUSED);
    }
    // Each refused batch spent one request, as any request does, and ran nothing.
    const single = await post(server, key, call(1, 'get_balance', {}), '2025-06-18');
    expect(single.status).toBe(200);
    expect(single.headers.get('x-ratelimit-remaining')).toBe(String(60 - 6));
    expect(await executionsOf(api, key)).toEqual([]);
  });

  it('counts every message of a batch on 2025-03-26, and refuses whole a batch over what is left', async ({ server, api }) => {
    const { key } = await licensedKey(server, api);
    const hundred = await post(
      server,
      key,
      [call(0, 'run_skill', { skill_slug: 'ticker', input: '1 1' }), ...reads(99)],
      '2025-03-26',
    );
    expect(hundred.status).toBe(429);
    expect(await hundred.json()).toEqual(RATE_LIMITED);
    expect(hundred.headers.get('x-ratelimit-limit')).toBe('60');
    // Refused whole, it counts nothing: all 60 are left.
    expect(hundred.headers.get('x-ratelimit-remaining')).toBe('60');
    expect(Number(hundred.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await executionsOf(api, key)).toEqual([]);

    const ten = await post(server, key, reads(10), '2025-03-26');
    expect(ten.status).toBe(200);
    expect(ten.headers.get('x-ratelimit-remaining')).toBe(String(60 - 10));
    const answers = await responsesOf(ten);
    expect(answers.map((answer) => answer.id).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    expect(answers.every((answer) => answer.result !== undefined)).toBe(true);

    // 50 left: a batch of 51 is refused whole (nothing counted, nothing run), one of 50 fits.
    const over = await post(server, key, reads(51), '2025-03-26');
    expect(over.status).toBe(429);
    expect(over.headers.get('x-ratelimit-remaining')).toBe('50');
    const fits = await post(server, key, reads(50), '2025-03-26');
    expect(fits.status).toBe(200);
    expect(fits.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await responsesOf(fits)).toHaveLength(50);
    expect((await post(server, key, call(1, 'get_balance', {}), '2025-03-26')).status).toBe(429);
  });

  it('never lets batches sent at once spend more than the allowance', async ({ server, api }) => {
    const { key } = await licensedKey(server, api);
    const replies = await Promise.all(Array.from({ length: 8 }, () => post(server, key, reads(10), '2025-03-26')));
    const served = replies.filter((reply) => reply.status === 200);
    const refused = replies.filter((reply) => reply.status === 429);
    expect(served.length + refused.length).toBe(8);
    // A served batch counts ten (its request and nine more): never past 60, nor under 5 served.
    expect(served.length * 10).toBeLessThanOrEqual(60);
    expect(served.length).toBeGreaterThanOrEqual(5);
    for (const reply of served) expect(await responsesOf(reply)).toHaveLength(10);
    for (const reply of refused) await reply.arrayBuffer();
  });

  it('takes a batch with no revision header as 2025-03-26, the revision the SDK assumes then', async ({ server, api }) => {
    const { key } = await licensedKey(server, api);
    const reply = await post(server, key, reads(10));
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-remaining')).toBe('50');
    expect(await responsesOf(reply)).toHaveLength(10);
    const hundred = await post(server, key, reads(100));
    expect(hundred.status).toBe(429);
    expect(await hundred.json()).toEqual(RATE_LIMITED);
  });
});

describe('a batch refused for the limit', () => {
  it('counts nothing, so what is left of the minute still serves what fits (52 of 60 used)', async ({ server, api }) => {
    const { key } = await licensedKey(server, api);
    for (let i = 0; i < 52; i++) {
      const single = await post(server, key, call(i, 'get_balance', {}), '2025-03-26');
      expect(single.status).toBe(200);
      await single.arrayBuffer();
    }
    // Sent again and again, as a client that retries does: each refusal leaves the 8 where they were.
    for (let attempt = 0; attempt < 3; attempt++) {
      const ten = await post(server, key, reads(10), '2025-03-26');
      expect(ten.status).toBe(429);
      expect(await ten.json()).toEqual({
        error: {
          type: 'rate_limit_error',
          message: expect.stringMatching(
            /^This batch of 10 messages needs 10 of the MCP allowance and 8 are left this minute\. Send at most 8 messages at once, or wait \d+ seconds\.$/,
          ),
        },
      });
      expect(ten.headers.get('x-ratelimit-remaining')).toBe('8');
    }
    const eight = await post(server, key, reads(8), '2025-03-26');
    expect(eight.status).toBe(200);
    expect(eight.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await responsesOf(eight)).toHaveLength(8);
    const over = await post(server, key, call(1, 'get_balance', {}), '2025-03-26');
    expect([over.status, await over.json()]).toEqual([429, RATE_LIMITED]);
  });
});

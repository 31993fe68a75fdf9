import { connect } from 'node:net';
import { describe, expect } from 'vitest';
import { createExecution } from '../../helpers/executions.js';
import { session, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';

const it = withServer({ ACCESS_LOG: 'all' });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The log lines (parsed) that carry `requestId`. */
function linesOf(logs: string[], requestId: string): Record<string, unknown>[] {
  return logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.requestId === requestId);
}

/** One request written by hand, for header values fetch refuses to send; answers the x-request-id given back. */
async function rawRequestId(url: string, requestLine: string, headerLine: Buffer): Promise<string | undefined> {
  const { port } = new URL(url);
  const socket = connect(Number(port), '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise((resolve) => socket.on('close', resolve));
  socket.write(
    Buffer.concat([Buffer.from(`${requestLine}\r\nHost: x\r\nConnection: close\r\n`), headerLine, Buffer.from('\r\n')]),
  );
  await ended;
  const head = Buffer.concat(chunks).toString('latin1').split('\r\n\r\n')[0] ?? '';
  return /^x-request-id: (.*)$/im.exec(head)?.[1];
}

describe('x-request-id', () => {
  it('is on every answer, and on every log line of its request', async ({ api, server }) => {
    const reply = await api.get('/healthz');
    const id = reply.headers.get('x-request-id') ?? '';
    expect(id).toMatch(UUID);
    const lines = linesOf(server.logs, id);
    expect(lines.map((line) => line.msg)).toEqual(['request completed']);
    expect(lines[0]).toMatchObject({ req: { method: 'GET', path: '/healthz' }, statusCode: 200 });

    const refused = await api.get('/api/v1/workspaces');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toMatch(UUID);
    const missing = await api.get('/no/such/route');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('x-request-id')).toMatch(UUID);
    expect(missing.headers.get('x-request-id')).not.toBe(refused.headers.get('x-request-id'));
    // A path the router cannot decode is answered before any hook runs.
    const undecodable = await api.get('/api/v1/keys/%E0%A4%A');
    expect(undecodable.status).toBe(400);
    expect(undecodable.headers.get('x-request-id')).toMatch(UUID);
  });

  it("keeps a client's own well-formed id", async ({ api, server }) => {
    const reply = await api.get('/readyz', { headers: { 'x-request-id': 'client-1234.abc' } });
    expect(reply.headers.get('x-request-id')).toBe('client-1234.abc');
    expect(linesOf(server.logs, 'client-1234.abc').length).toBeGreaterThanOrEqual(1);
  });

  it('replaces a hostile one: too long, with a line break, not ASCII', async ({ api, server }) => {
    const long = 'a'.repeat(129);
    const tooLong = await api.get('/healthz', { headers: { 'x-request-id': long } });
    expect(tooLong.headers.get('x-request-id')).toMatch(UUID);
    expect(server.logs.some((line) => line.includes(long))).toBe(false);
    const spaced = await api.get('/healthz', { headers: { 'x-request-id': 'a b' } });
    expect(spaced.headers.get('x-request-id')).toMatch(UUID);

    // Node's parser refuses a bare CR inside a value; an obs-fold or a latin-1 byte gets through it to us.
    const nonAscii = await rawRequestId(server.url, 'GET /healthz HTTP/1.1', Buffer.from('X-Request-Id: caf\xe9\r\n', 'latin1'));
    expect(nonAscii).toMatch(UUID);
    const injected = await rawRequestId(
      server.url,
      'GET /healthz HTTP/1.1',
      Buffer.from('X-Request-Id: abc\r\n X-Injected: yes\r\n', 'latin1'),
    );
    expect(injected === undefined || UUID.test(injected)).toBe(true);
    const twice = await rawRequestId(server.url, 'GET /healthz HTTP/1.1', Buffer.from('X-Request-Id: a\r\nX-Request-Id: b\r\n'));
    expect(twice).toMatch(UUID);
  });

  it('is on event streams served ahead of Fastify, and in their log lines', async ({ server }) => {
    const response = await fetch(`${server.url}/executions/nope/stream?ts=1&sig=bad`, {
      headers: { 'x-request-id': 'stream-req-1' },
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.headers.get('x-request-id')).toBe('stream-req-1');
    expect(linesOf(server.logs, 'stream-req-1').map((line) => line.msg)).toEqual(['request refused']);
  });

  it('is on an event stream that opens, beside its rate-limit headers, and in its log line', async ({ api, server }) => {
    const owner = await signUp(api);
    const created = await createExecution(api, owner, 'ticker', '1 1');
    const token = await api.get<{ sseUrl: string }>(`/api/v1/executions/${created.id}/stream-token`, { headers: session(owner) });
    const aborted = new AbortController();
    const response = await fetch(token.body.sseUrl, { headers: { 'x-request-id': 'stream-req-2' }, signal: aborted.signal });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('stream-req-2');
    expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(linesOf(server.logs, 'stream-req-2').map((line) => line.msg)).toEqual(['event stream opened']);
    aborted.abort();
  });
});

import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runToEnd, tickerRunTypes } from '../../helpers/executions.js';
import { signUp } from '../../helpers/factories.js';
import { client } from '../../helpers/http.js';
import { startServer, type TestServer } from '../../helpers/server.js';

/**
 * Issue 25, item 7: bodies trickled in a byte at a time used to hold their connections for
 * good (Node's request deadline was off, and a request refused before its body was read kept
 * its connection to read and discard the rest). Each socket here declares a 100 KB body and
 * sends a byte of it every 200 ms.
 */

const SOCKETS = 40;
const DECLARED_BODY = 100_000;

interface SlowRequest {
  socket: Socket;
  /** Everything the server wrote back. */
  received(): string;
  /** Settles with the milliseconds from the first byte sent until the server closed the connection. */
  closed: Promise<number>;
}

function slowPost(url: string, path: string): SlowRequest {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  const started = Date.now();
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.on('error', () => undefined);
  let drip: NodeJS.Timeout | undefined;
  const closed = new Promise<number>((resolve) => {
    socket.on('close', () => {
      clearInterval(drip);
      resolve(Date.now() - started);
    });
  });
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${DECLARED_BODY}\r\nConnection: keep-alive\r\n\r\n{`,
  );
  drip = setInterval(() => {
    if (!socket.destroyed) socket.write(' ');
  }, 200);
  return { socket, received: () => text, closed };
}

/** Waits for a promise, or says it did not settle within `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T | 'still open'> {
  return Promise.race([promise, new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), ms))]);
}

let server: TestServer | undefined;
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});

describe('slow request bodies', () => {
  it('cuts a body still arriving at the request deadline with a 408, and closes its connection', async () => {
    server = await startServer({ REQUEST_TIMEOUT_SECONDS: '2', RATE_LIMIT_REST_PER_MINUTE: '100000' });
    const requests = Array.from({ length: SOCKETS }, () => slowPost(server?.url ?? '', '/api/v1/auth/login'));
    sockets.push(...requests.map((request) => request.socket));

    const closedAfter = await Promise.all(requests.map((request) => within(request.closed, 8_000)));
    expect(closedAfter.filter((ms) => ms === 'still open')).toHaveLength(0);
    for (const request of requests) {
      const answer = request.received();
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(answer).toMatch(/connection: close/i);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('INVALID_INPUT');
      expect(body.error.message).toBe('The request did not arrive in time. Send it again, all at once.');
    }
    // A client cut off is no failure of the server's: no error lines (one per attacker's socket).
    expect(server.logs.filter((line) => line.includes('"level":50'))).toEqual([]);
  });

  it('closes the connection of a request refused before its body was read, instead of reading the rest', async () => {
    // The deadline is far away: only the refusal may close these connections.
    server = await startServer({ REQUEST_TIMEOUT_SECONDS: '600', RATE_LIMIT_REST_PER_MINUTE: '1' });
    const api = client(server.url);
    await api.get('/api/v1/marketplace/skills');
    expect((await api.get('/api/v1/marketplace/skills')).status).toBe(429);

    const requests = Array.from({ length: SOCKETS }, () => slowPost(server?.url ?? '', '/api/v1/auth/login'));
    sockets.push(...requests.map((request) => request.socket));
    const closedAfter = await Promise.all(requests.map((request) => within(request.closed, 3_000)));
    expect(closedAfter.filter((ms) => ms === 'still open')).toHaveLength(0);
    for (const request of requests) {
      expect(request.received()).toMatch(/^HTTP\/1\.1 429 /);
      expect(request.received()).toMatch(/connection: close/i);
    }
  });

  it('keeps a connection whose bodies arrive whole, and lets a stream outlive the request deadline', async () => {
    server = await startServer({ REQUEST_TIMEOUT_SECONDS: '1' });
    const { hostname, port } = new URL(server.url);
    const socket = connect({ host: hostname, port: Number(port) });
    sockets.push(socket);
    socket.setEncoding('utf8');
    let text = '';
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'not the password' });
    const request = `POST /api/v1/auth/login HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    socket.write(request + request);
    await expect.poll(() => text.match(/HTTP\/1\.1 401 /g)?.length ?? 0, { timeout: 5_000 }).toBe(2);
    expect(socket.destroyed).toBe(false);
    expect(text).not.toMatch(/connection: close/i);

    // Five ticks a second apart: the stream is open for about five request deadlines.
    const api = client(server.url);
    const user = await signUp(api);
    const { stream } = await runToEnd(api, user, 'ticker', '5 1000');
    expect(stream.droppedBy).toBeUndefined();
    expect(stream.events.map((event) => event.type)).toEqual(tickerRunTypes(5));
  });
});

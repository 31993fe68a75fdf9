import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, createServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import type { EgressPolicy } from '../../src/sandbox/egress/egress-policy.js';
import { type EgressProxy, type EgressProxyOptions, startEgressProxy } from '../../src/sandbox/egress/egress-proxy.js';
import { connectRequest, ProxyClient } from '../helpers/proxy-client.js';

/** The proxy on a unix socket, driven with raw bytes as any client inside a sandbox could send. */

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

let dir: string;
let socketPath: string;
let web: Server;
let webPort: number;
let received: Received[];
let echo: NetServer;
let echoPort: number;
let proxy: EgressProxy | undefined;
let lines: Record<string, unknown>[];

const listening = async <T extends Server | NetServer>(server: T): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-egress-'));
  socketPath = path.join(dir, 'proxy.sock');
  received = [];
  lines = [];
  web = createHttpServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on('end', () => {
      received.push({ method: request.method, url: request.url, headers: request.headers, body });
      response.writeHead(201, { 'content-type': 'text/plain', 'set-cookie': ['a=1', 'b=2'] }).end('made');
    });
  });
  echo = createServer((socket) => socket.pipe(socket));
  [webPort, echoPort] = await Promise.all([listening(web), listening(echo)]);
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  web.closeAllConnections();
  await Promise.all([new Promise((resolve) => web.close(resolve)), new Promise((resolve) => echo.close(resolve))]);
  await rm(dir, { recursive: true, force: true });
});

function policy(overrides: Partial<EgressPolicy> = {}): EgressPolicy {
  return {
    allowedHosts: ['127.0.0.1', 'localhost'],
    allowPrivateAddresses: true,
    ports: [80, 443, webPort, echoPort],
    bytesPerRun: 1024 ** 3,
    connectionLifetimeMs: 60_000,
    ...overrides,
  };
}

async function start(overrides: Partial<EgressProxyOptions> = {}): Promise<EgressProxy> {
  proxy = await startEgressProxy({
    socketPath,
    policy: policy(),
    log: { info: (fields) => lines.push(fields) },
    runId: 'run-1',
    ...overrides,
  });
  return proxy;
}

/** A connection to the proxy that keeps all it receives. */
class Client extends ProxyClient {
  constructor() {
    super(socketPath);
  }
}

describe('the egress proxy', () => {
  it('tunnels CONNECT to an allowed host byte for byte, and logs the connection with its bytes and duration', async () => {
    const clock = new ManualClock();
    await start({ clock });
    const client = new Client().send(connectRequest(`127.0.0.1:${echoPort}`));
    await client.until(/^HTTP\/1\.1 200 Connection Established\r\n\r\n$/);
    const payload = Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x00, 0x0d, 0x0a]);
    client.data = Buffer.alloc(0);
    client.send(payload);
    await vi.waitFor(() => expect(client.data.equals(payload)).toBe(true));
    clock.advance(1500);
    client.socket.end();
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toEqual({
      runId: 'run-1',
      host: '127.0.0.1',
      port: echoPort,
      allowed: true,
      address: '127.0.0.1',
      bytesUp: payload.length,
      bytesDown: payload.length,
      durationMs: 1500,
    });
  });

  it('forwards a plain-HTTP request to the checked address, without proxy headers, keeping repeated answer headers', async () => {
    await start();
    const body = 'name=skillet';
    const client = new Client().send(
      `POST http://127.0.0.1:${webPort}/submit?x=1 HTTP/1.1\r\nHost: metadata.internal\r\n` +
        `Proxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    );
    const answer = await client.until(/\r\n0\r\n\r\n$/);
    expect(answer).toMatch(/^HTTP\/1\.1 201 Created\r\n[\s\S]*\r\n\r\n4\r\nmade\r\n/);
    expect(answer.match(/set-cookie: [ab]=[12]/gi)).toHaveLength(2);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', url: '/submit?x=1', body });
    expect(received[0]?.headers).toMatchObject({ host: `127.0.0.1:${webPort}` });
    expect(Object.keys(received[0]?.headers ?? {})).not.toContain('proxy-authorization');
    expect(Object.keys(received[0]?.headers ?? {})).not.toContain('proxy-connection');
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toMatchObject({ allowed: true, host: '127.0.0.1', port: webPort });
    expect(lines[0]?.bytesUp).toBeGreaterThan(body.length);
    expect(lines[0]?.bytesDown).toBeGreaterThan(4);
  });

  it.each([
    [
      connectRequest('example.org:443'),
      'example.org is not among the hosts this server allows skills to reach; an operator can add it to SKILL_ALLOWED_HOSTS',
    ],
    [connectRequest('127.0.0.1:22'), '127.0.0.1 was asked for on port 22; skills may reach only ports'],
    ['GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n', 'example.org is not among the hosts'],
    ['GET / HTTP/1.1\r\nHost: x\r\n\r\n', 'this is the network proxy for skills: ask it for a full http:// address'],
    ['GET https://127.0.0.1/ HTTP/1.1\r\nHost: x\r\n\r\n', 'https addresses go through a CONNECT tunnel'],
    [connectRequest('127.0.0.1'), '"127.0.0.1" is not a host and port to connect to'],
    [connectRequest('user@127.0.0.1:80'), 'is not a host and port'],
  ])('refuses %j with a 403 whose status line and body say why', async (request, reason) => {
    await start();
    const client = new Client().send(request);
    const answer = await client.until(/\n[^\n]+\n$/);
    expect(answer).toMatch(/^HTTP\/1\.1 403 /);
    expect(answer.split('\r\n')[0]).toContain(reason);
    expect(answer.split('\r\n\r\n')[1]).toContain(reason);
    await client.closed;
    expect(received).toEqual([]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ runId: 'run-1', allowed: false, bytesUp: 0, bytesDown: 0 });
    expect(String(lines[0]?.reason)).toContain(reason);
  });

  it('refuses loopback, by address and by a name that resolves to it, unless private addresses are allowed', async () => {
    await start({ policy: policy({ allowPrivateAddresses: false }) });
    for (const target of [`127.0.0.1:${webPort}`, `localhost:${webPort}`]) {
      const answer = await new Client().send(connectRequest(target)).until(/\n$/);
      expect(answer).toMatch(/^HTTP\/1\.1 403 .*leads to (127\.0\.0\.1|::1), a private or local address/);
    }
    const plain = await new Client().send(`GET http://localhost:${webPort}/ HTTP/1.1\r\nHost: x\r\n\r\n`).until(/\n$/);
    expect(plain).toMatch(/^HTTP\/1\.1 403 .*a private or local address that skills may not reach/);
    expect(received).toEqual([]);
    expect(lines.map((line) => line.allowed)).toEqual([false, false, false]);
  });

  it('connects to the address it checked: the name is resolved once, so a rebinding second answer is never used', async () => {
    let lookups = 0;
    const resolve = async () => {
      lookups += 1;
      return [{ address: lookups === 1 ? '127.0.0.1' : '10.255.255.1', family: 4 }];
    };
    await start({ policy: policy({ allowedHosts: ['rebind.example'] }), resolve });
    const client = new Client().send(connectRequest(`rebind.example:${echoPort}`));
    await client.until(/200 Connection Established/);
    client.data = Buffer.alloc(0);
    client.send('ping');
    await client.until(/^ping$/);
    expect(lookups).toBe(1);
    client.socket.destroy();
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toMatchObject({ host: 'rebind.example', address: '127.0.0.1', allowed: true });
  });

  it('answers 502 when an allowed destination does not answer, and logs why', async () => {
    const closed = createServer();
    const port = await listening(closed);
    await new Promise((resolve) => closed.close(resolve));
    await start({ policy: policy({ ports: [port] }) });
    const answer = await new Client().send(connectRequest(`127.0.0.1:${port}`)).until(/\n$/);
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 502 127\\.0\\.0\\.1:${port} could not be reached \\(ECONNREFUSED\\)`));
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toMatchObject({ allowed: true, error: 'ECONNREFUSED', bytesUp: 0, bytesDown: 0 });
  });

  it('answers what it cannot read with a 400, a huge header included', async () => {
    await start();
    const garbage = await new Client().send('\x00\x01\x02 not http at all\r\n\r\n').until(/\n$/);
    expect(garbage).toMatch(/^HTTP\/1\.1 400 the proxy could not read this request/);
    const huge = await new Client()
      .send(`GET http://127.0.0.1:${webPort}/ HTTP/1.1\r\nX-Big: ${'a'.repeat(100_000)}\r\n\r\n`)
      .until(/\n$/);
    expect(huge).toMatch(/^HTTP\/1\.1 (400|431) /);
    expect(received).toEqual([]);
  });

  it('holds the sandbox to its number of connections at once', async () => {
    await start({ maxConnections: 2 });
    const open = [new Client(), new Client()];
    for (const client of open) await client.send(connectRequest(`127.0.0.1:${echoPort}`)).until(/200 Connection Established/);
    const third = await new Client().send(connectRequest(`127.0.0.1:${echoPort}`)).until(/\n$/);
    expect(third).toMatch(/^HTTP\/1\.1 503 the sandbox already has 2 connections open; close one and try again/);
    open[0]?.socket.destroy();
    await open[0]?.closed;
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    await new Client().send(connectRequest(`127.0.0.1:${echoPort}`)).until(/200 Connection Established/);
  });

  it('closes a connection that stays idle', async () => {
    await start({ idleTimeoutMs: 100 });
    const client = new Client().send(connectRequest(`127.0.0.1:${echoPort}`));
    await client.until(/200 Connection Established/);
    await client.closed;
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toMatchObject({ allowed: true, bytesUp: 0, bytesDown: 0, closed: 'idle' });
  });

  it('destroys every connection and removes its socket on close, every connection reported by the time it settles', async () => {
    const running = await start();
    const tunnel = new Client().send(connectRequest(`127.0.0.1:${echoPort}`));
    await tunnel.until(/200 Connection Established/);
    const waiting = new Client();
    await vi.waitFor(() => expect(waiting.socket.readyState).toBe('open'));
    await running.close();
    proxy = undefined;
    // The run's log is whole once close settles: the tunnel's destination closed and was reported.
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ allowed: true, host: '127.0.0.1', port: echoPort });
    await Promise.all([tunnel.closed, waiting.closed]);
    expect(existsSync(socketPath)).toBe(false);
  });

  it('refuses to start on a path that is taken', async () => {
    await start();
    await expect(
      startEgressProxy({ socketPath, policy: policy(), log: { info: () => undefined }, runId: 'run-2' }),
    ).rejects.toThrow(/EADDRINUSE/);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EgressPolicy } from '../../src/sandbox/egress/egress-policy.js';
import { type EgressProxy, startEgressProxy } from '../../src/sandbox/egress/egress-proxy.js';
import { connectRequest, ProxyClient } from '../helpers/proxy-client.js';

/** The egress proxy's caps on a run's bytes and a connection's life, driven over its unix socket. */

const MIB = 1024 * 1024;
/** Past the quota by at most one read of a socket (Node reads up to 64 KiB at a time). */
const ONE_READ = 64 * 1024;

let dir: string;
let socketPath: string;
let echo: NetServer;
let echoPort: number;
/** Sends 4 MiB down every connection, then waits. */
let firehose: NetServer;
let firehosePort: number;
/** Answers any request with a 4 MiB body. */
let web: Server;
let webPort: number;
let proxy: EgressProxy | undefined;
let lines: Record<string, unknown>[];

const listening = async <T extends Server | NetServer>(server: T): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-egress-caps-'));
  socketPath = path.join(dir, 'proxy.sock');
  lines = [];
  echo = createServer((socket) => socket.pipe(socket).on('error', () => undefined));
  firehose = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.write(Buffer.alloc(4 * MIB, 'x'));
  });
  web = createHttpServer((_request, response) => response.end(Buffer.alloc(4 * MIB, 'y')));
  [echoPort, firehosePort, webPort] = await Promise.all([listening(echo), listening(firehose), listening(web)]);
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  web.closeAllConnections();
  await Promise.all([echo, firehose, web].map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(dir, { recursive: true, force: true });
});

async function start(caps: Partial<Pick<EgressPolicy, 'bytesPerRun' | 'connectionLifetimeMs'>>): Promise<void> {
  proxy = await startEgressProxy({
    socketPath,
    policy: {
      allowedHosts: ['127.0.0.1'],
      allowPrivateAddresses: true,
      ports: [echoPort, firehosePort, webPort],
      bytesPerRun: 1024 ** 3,
      connectionLifetimeMs: 60_000,
      ...caps,
    },
    log: { info: (fields) => lines.push(fields) },
    runId: 'run-caps',
  });
}

const client = () => new ProxyClient(socketPath);
const moved = (line: Record<string, unknown> | undefined) => Number(line?.bytesUp) + Number(line?.bytesDown);

describe('the egress proxy’s caps', () => {
  it('closes a download at the run’s byte quota, says so in its one log line, and refuses the run’s next connection', async () => {
    await start({ bytesPerRun: 100_000 });
    const download = client().send(connectRequest(`127.0.0.1:${firehosePort}`));
    await download.closed;
    expect(download.data.length).toBeLessThan(100_000 + ONE_READ);
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toMatchObject({ runId: 'run-caps', allowed: true, port: firehosePort, closed: 'quota' });
    expect(moved(lines[0])).toBeGreaterThan(100_000);
    expect(moved(lines[0])).toBeLessThan(100_000 + ONE_READ);

    const refused = await client()
      .send(connectRequest(`127.0.0.1:${echoPort}`))
      .until(/\n[^\n]+\n$/);
    const reason =
      'this run has used all 100000 bytes of network traffic it may; the rest of the run must do without the network (an operator can raise SKILL_NETWORK_BYTES_PER_RUN)';
    expect(refused.split('\r\n')[0]).toBe(`HTTP/1.1 403 ${reason}`);
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    expect(lines[1]).toMatchObject({ allowed: false, port: echoPort, reason, bytesUp: 0, bytesDown: 0 });
  });

  it('counts both ways and every connection together, closing all that are open once the run passes it', async () => {
    await start({ bytesPerRun: 100_000 });
    const tunnels = [client(), client()];
    for (const tunnel of tunnels) await tunnel.send(connectRequest(`127.0.0.1:${echoPort}`)).until(/200 Connection Established/);
    // 30,000 up and the same back: 60,000 a tunnel, under the quota alone and past it together.
    tunnels[0]?.send(Buffer.alloc(30_000, 'a'));
    await vi.waitFor(() => expect(tunnels[0]?.data.length).toBeGreaterThanOrEqual(30_000 + 39));
    tunnels[1]?.send(Buffer.alloc(30_000, 'b'));
    await Promise.all(tunnels.map((tunnel) => tunnel.closed));
    await vi.waitFor(() => expect(lines).toHaveLength(2));
    expect(lines.map((line) => line.closed)).toEqual(['quota', 'quota']);
    expect(moved(lines[0]) + moved(lines[1])).toBeGreaterThan(100_000);
    expect(moved(lines[0]) + moved(lines[1])).toBeLessThanOrEqual(120_000);
  });

  it('holds plain-HTTP requests to the same quota', async () => {
    await start({ bytesPerRun: 200_000 });
    const request = client().send(`GET http://127.0.0.1:${webPort}/big HTTP/1.1\r\nHost: x\r\n\r\n`);
    await request.closed;
    expect(request.text()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(request.data.length).toBeLessThan(200_000 + ONE_READ);
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toMatchObject({ allowed: true, port: webPort, closed: 'quota' });
  });

  it('closes a connection at its lifetime however busy it is, and lets the run open another', async () => {
    await start({ connectionLifetimeMs: 400 });
    const drip = client().send(connectRequest(`127.0.0.1:${echoPort}`));
    await drip.until(/200 Connection Established/);
    const opened = Date.now();
    // A byte every 50 ms: never idle, so only the lifetime can end it.
    const dripping = setInterval(() => drip.send('.'), 50);
    await drip.closed;
    clearInterval(dripping);
    expect(Date.now() - opened).toBeLessThan(5000);
    expect(drip.text()).toMatch(/\.{3,}$/);
    await vi.waitFor(() => expect(lines).toHaveLength(1));
    expect(lines[0]).toMatchObject({ allowed: true, port: echoPort, closed: 'lifetime' });
    expect(Number(lines[0]?.bytesUp)).toBeGreaterThan(0);

    await client()
      .send(connectRequest(`127.0.0.1:${echoPort}`))
      .until(/200 Connection Established/);
  });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startEgressProxy } from '../../src/sandbox/egress/egress-proxy.js';
import { connectRequest, ProxyClient } from '../helpers/proxy-client.js';
import { runs } from './settings.js';

/**
 * The egress proxy's byte quota under any mix of tunnels and sends (issue 50): whatever a
 * run sends on whichever of its connections, the bytes the log reports stay within the
 * quota and one read past it; a run that stays under it loses nothing; once it is past,
 * every connection still open is closed saying so and every new one is refused; and each
 * connection is one log line.
 */

/** Node reads a socket up to 64 KiB at a time; the quota is checked after each read. */
const ONE_READ = 64 * 1024;
const ESTABLISHED = 'HTTP/1.1 200 Connection Established\r\n\r\n';

let dir: string;
let echo: Server;
let echoPort: number;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-egress-fuzz-'));
  echo = createServer((socket) => socket.pipe(socket).on('error', () => undefined));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => echo.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

const plans = fc.record({
  quota: fc.integer({ min: 1024, max: 600_000 }),
  sends: fc.array(fc.record({ on: fc.nat({ max: 3 }), bytes: fc.integer({ min: 1, max: 200_000 }) }), {
    minLength: 1,
    maxLength: 10,
  }),
});

/** Opens a tunnel to the echo server; its answer is the 200 or a refusal. */
async function open(socketPath: string): Promise<ProxyClient> {
  const client = new ProxyClient(socketPath).send(connectRequest(`127.0.0.1:${echoPort}`));
  await Promise.race([client.until(/\r\n\r\n/), client.closed]);
  return client;
}

/** Waits until the tunnel has received `length` bytes in all, or has closed. */
async function backOrClosed(tunnel: ProxyClient, length: number): Promise<void> {
  const deadline = Date.now() + 5000;
  while (tunnel.data.length < length && !tunnel.socket.destroyed) {
    if (Date.now() > deadline) throw new Error(`the echo of ${length} bytes did not come back, nor did the tunnel close`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

it('keeps every run within its byte quota, however its bytes are sent', async () => {
  let round = 0;
  await fc.assert(
    fc.asyncProperty(plans, async ({ quota, sends }) => {
      const socketPath = path.join(dir, `proxy-${round++}.sock`);
      const lines: Record<string, unknown>[] = [];
      const proxy = await startEgressProxy({
        socketPath,
        policy: {
          allowedHosts: ['127.0.0.1'],
          allowPrivateAddresses: true,
          ports: [echoPort],
          bytesPerRun: quota,
          connectionLifetimeMs: 60_000,
        },
        log: { info: (fields) => lines.push(fields) },
        runId: 'run-fuzz',
      });
      const tunnels = new Map<number, ProxyClient>();
      let attempts = 0;
      try {
        for (const { on, bytes } of sends) {
          let tunnel = tunnels.get(on);
          if (!tunnel) {
            attempts += 1;
            tunnel = await open(socketPath);
            tunnels.set(on, tunnel);
          }
          if (tunnel.socket.destroyed || !tunnel.text().startsWith(ESTABLISHED)) continue;
          const expected = tunnel.data.length + bytes;
          tunnel.send(Buffer.alloc(bytes, 'abcd'[on] ?? 'a'));
          await backOrClosed(tunnel, expected);
        }
      } finally {
        for (const tunnel of tunnels.values()) tunnel.socket.destroy();
        await proxy.close();
      }
      expect(lines).toHaveLength(attempts);
      const moved = lines.reduce((sum, line) => sum + Number(line.bytesUp) + Number(line.bytesDown), 0);
      expect(moved).toBeLessThanOrEqual(quota + ONE_READ);
      const passed = lines.some((line) => line.closed === 'quota');
      // Under the quota nothing is cut: every byte sent came back.
      if (moved <= quota) expect(passed).toBe(false);
      for (const line of lines) {
        if (line.allowed === false) expect(String(line.reason)).toContain('SKILL_NETWORK_BYTES_PER_RUN');
        else expect([undefined, 'quota']).toContain(line.closed);
      }
      for (const tunnel of tunnels.values()) {
        const answer = tunnel.text();
        if (answer.startsWith(ESTABLISHED)) expect(answer.slice(ESTABLISHED.length)).toMatch(/^[abcd]*$/);
        else expect(answer).toMatch(/^HTTP\/1\.1 403 this run has used all /);
      }
    }),
    runs(30),
  );
});

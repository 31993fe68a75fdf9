import { mkdtemp, rm } from 'node:fs/promises';
import { createServer as createHttpServer, type Server } from 'node:http';
import { type AddressInfo, createServer, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EgressPolicy } from '../../src/sandbox/egress/egress-policy.js';
import { type EgressProxy, startEgressProxy } from '../../src/sandbox/egress/egress-proxy.js';
import { capturingLogger, EGRESS_SANDBOX_HERE, inSandbox, START_FORWARDER } from '../helpers/egress-sandbox.js';

/**
 * The skill network's caps from inside a real sandbox, through the forwarder: a connection
 * that drips a byte now and then (never idle) is closed at its lifetime, and a run that
 * downloads more than its quota is cut off and then refused.
 */

/** Tunnels to the echo server, sends a byte every 100 ms, and prints how long the connection lasted and how it ended. */
const DRIP = `${START_FORWARDER}
import json, sys
port = int(sys.argv[1])
tunnel = socket.create_connection(("127.0.0.1", 3128), timeout=15)
tunnel.sendall(("CONNECT 127.0.0.1:%d HTTP/1.1\\r\\nHost: 127.0.0.1:%d\\r\\n\\r\\n" % (port, port)).encode())
answer = b""
while not answer.endswith(b"\\r\\n\\r\\n"):
    answer += tunnel.recv(1)
opened = time.monotonic()
echoed, ending = 0, "still open after 15 s"
while time.monotonic() - opened < 15:
    try:
        tunnel.sendall(b".")
        got = tunnel.recv(64)
    except OSError as error:
        ending = error.strerror or str(error)
        break
    if not got:
        ending = "closed"
        break
    echoed += len(got)
    time.sleep(0.1)
print(json.dumps({"answer": answer.decode().split("\\r\\n")[0], "seconds": time.monotonic() - opened, "echoed": echoed, "ending": ending}))
`;

/** Downloads the big page with curl twice through the proxy, printing each exit code, bytes received and error. */
const DOWNLOAD = `${START_FORWARDER}
import json, subprocess, sys
url = "http://127.0.0.1:%s/big" % sys.argv[1]
results = []
for _ in range(2):
    curl = subprocess.run(["/usr/bin/curl", "-sS", "-o", "/dev/null", "-w", "%{size_download} %{http_code}", url], capture_output=True, text=True)
    results.append({"code": curl.returncode, "out": curl.stdout, "err": curl.stderr.strip()})
print(json.dumps(results))
`;

let dir: string;
let echo: NetServer;
let echoPort: number;
let web: Server;
let webPort: number;
let proxy: EgressProxy | undefined;
let logged: Record<string, unknown>[];

const listening = async <T extends Server | NetServer>(server: T): Promise<number> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-egress-caps-'));
  echo = createServer((socket) => socket.pipe(socket).on('error', () => undefined));
  web = createHttpServer((_request, response) => response.end(Buffer.alloc(8 * 1024 * 1024, 'z')));
  [echoPort, webPort] = await Promise.all([listening(echo), listening(web)]);
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

afterAll(async () => {
  web.closeAllConnections();
  await Promise.all([echo, web].map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(dir, { recursive: true, force: true });
});

async function startProxy(caps: Partial<EgressPolicy>): Promise<string> {
  const socketPath = path.join(dir, `proxy-${Math.random().toString(36).slice(2)}.sock`);
  logged = [];
  proxy = await startEgressProxy({
    socketPath,
    policy: {
      allowedHosts: ['127.0.0.1'],
      allowPrivateAddresses: true,
      ports: [echoPort, webPort],
      bytesPerRun: 1024 ** 3,
      connectionLifetimeMs: 60_000,
      ...caps,
    },
    log: capturingLogger(logged),
    runId: 'run-caps',
  });
  return socketPath;
}

describe.runIf(EGRESS_SANDBOX_HERE)('the skill network’s caps, from inside bubblewrap', () => {
  it('closes a connection that drips a byte every 100 ms once it reaches its lifetime, and logs why', async () => {
    const socketPath = await startProxy({ connectionLifetimeMs: 1500 });
    const seen = JSON.parse(await inSandbox(DRIP, [String(echoPort)], socketPath)) as {
      answer: string;
      seconds: number;
      echoed: number;
      ending: string;
    };
    expect(seen.answer).toBe('HTTP/1.1 200 Connection Established');
    expect(seen.ending).not.toBe('still open after 15 s');
    expect(seen.seconds).toBeGreaterThan(1.2);
    expect(seen.seconds).toBeLessThan(6);
    expect(seen.echoed).toBeGreaterThan(5);
    await proxy?.close();
    proxy = undefined;
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      msg: 'skill network connection',
      runId: 'run-caps',
      port: echoPort,
      allowed: true,
      closed: 'lifetime',
    });
    // The last byte sent may have gone up without coming back before the close.
    expect(Number(logged[0]?.bytesUp)).toBeGreaterThanOrEqual(seen.echoed);
  });

  it('cuts a download off at the run’s byte quota, then refuses the run’s next request saying why', async () => {
    const socketPath = await startProxy({ bytesPerRun: 1024 * 1024 });
    const [first, second] = JSON.parse(await inSandbox(DOWNLOAD, [String(webPort)], socketPath)) as {
      code: number;
      out: string;
      err: string;
    }[];
    // curl's 18: the transfer ended before the length the answer announced.
    expect(first?.code).toBe(18);
    const [received] = (first?.out ?? '').split(' ');
    expect(Number(received)).toBeGreaterThan(900_000);
    expect(Number(received)).toBeLessThan(1024 * 1024 + 64 * 1024);
    expect(second?.out).toMatch(/^\d+ 403$/);
    await proxy?.close();
    proxy = undefined;
    expect(logged.map(({ allowed, closed, reason }) => ({ allowed, closed, reason }))).toEqual([
      { allowed: true, closed: 'quota', reason: undefined },
      {
        allowed: false,
        closed: undefined,
        reason: expect.stringContaining('this run has used all 1048576 bytes of network traffic it may'),
      },
    ]);
  });
});

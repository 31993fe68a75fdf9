import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { EgressPolicy } from '../../src/sandbox/egress/egress-policy.js';
import { type EgressProxy, startEgressProxy } from '../../src/sandbox/egress/egress-proxy.js';
import { capturingLogger, EGRESS_SANDBOX_HERE, FORWARDER_INSIDE, inSandbox, SOCKET_INSIDE } from '../helpers/egress-sandbox.js';

/**
 * The skill network end to end (DESIGN §14): a real bubblewrap sandbox with the sandbox's
 * own namespaces (no network but its loopback), the egress proxy's socket bound in, the
 * forwarder running under the sandbox's python3, and programs inside using the proxy
 * variables. What the policy allows is reached; everything else is refused or unreachable.
 */

/** Run inside: starts the forwarder (unless told not to), then tries every way out and prints what happened. */
const PROBE = `
import json, socket, subprocess, sys, time, urllib.error, urllib.request
port, with_forwarder = int(sys.argv[1]), sys.argv[2] == "forwarder"
results = {}
if with_forwarder:
    subprocess.Popen(["/usr/bin/python3", "${FORWARDER_INSIDE}", "${SOCKET_INSIDE}"])
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", 3128), timeout=1).close()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.02)

def fetch(name, url):
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            results[name] = {"status": answer.status, "body": answer.read().decode()}
    except urllib.error.HTTPError as error:
        results[name] = {"status": error.code, "reason": error.reason, "body": error.read().decode()}
    except Exception as error:
        results[name] = {"error": str(error)}

def dial(name, address):
    try:
        socket.create_connection(address, timeout=3).close()
        results[name] = "connected"
    except OSError as error:
        results[name] = error.strerror or str(error)

fetch("plain", "http://127.0.0.1:%d/plain" % port)
fetch("refusedPlain", "http://example.org/")
fetch("refusedTls", "https://example.org/")
curl = subprocess.run(["/usr/bin/curl", "-sS", "--proxytunnel", "-x", "http://127.0.0.1:3128", "http://127.0.0.1:%d/tunnel" % port], capture_output=True, text=True)
results["tunnel"] = {"code": curl.returncode, "out": curl.stdout, "err": curl.stderr.strip()}
dial("directHost", ("127.0.0.1", port))
dial("directPublic", ("93.184.215.14", 80))
print(json.dumps(results))
`;

interface Probe {
  plain: { status?: number; body?: string; reason?: string; error?: string };
  refusedPlain: { status?: number; body?: string; reason?: string; error?: string };
  refusedTls: { status?: number; error?: string };
  tunnel: { code: number; out: string; err: string };
  directHost: string;
  directPublic: string;
}

let dir: string;
let server: Server;
let port: number;
let proxy: EgressProxy | undefined;
let logged: Record<string, unknown>[];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-egress-sandbox-'));
  server = createServer((request, response) => response.end(`reached ${request.url}`));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function startProxy(policy: Partial<EgressPolicy>): Promise<string> {
  logged = [];
  const socketPath = path.join(dir, `proxy-${Math.random().toString(36).slice(2)}.sock`);
  proxy = await startEgressProxy({
    socketPath,
    policy: {
      allowedHosts: ['127.0.0.1'],
      allowPrivateAddresses: true,
      ports: [80, 443, port],
      bytesPerRun: 1024 ** 3,
      connectionLifetimeMs: 60_000,
      ...policy,
    },
    log: capturingLogger(logged),
    runId: 'run-egress',
  });
  return socketPath;
}

/** Runs the probe in the sandbox, with the socket bound in when given and the forwarder started when asked. */
async function probe(socketPath: string | undefined, forwarder: boolean): Promise<Probe> {
  return JSON.parse(await inSandbox(PROBE, [String(port), forwarder ? 'forwarder' : 'none'], socketPath)) as Probe;
}

describe.runIf(EGRESS_SANDBOX_HERE)('the skill network from inside bubblewrap', () => {
  it('reaches an allowed server through the proxy, by plain HTTP and through a CONNECT tunnel, and refuses a host not allowed', async () => {
    const socketPath = await startProxy({});
    const seen = await probe(socketPath, true);
    expect(seen.plain).toEqual({ status: 200, body: 'reached /plain' });
    expect(seen.tunnel).toEqual({ code: 0, out: 'reached /tunnel', err: '' });
    const reason =
      'example.org is not among the hosts this server allows skills to reach; an operator can add it to SKILL_ALLOWED_HOSTS';
    expect(seen.refusedPlain).toEqual({ status: 403, reason, body: `${reason}\n` });
    expect(seen.refusedTls.error).toBe(`<urlopen error Tunnel connection failed: 403 ${reason}>`);
    // The proxy is the only way out: the host's loopback and the internet are not in the sandbox.
    expect(seen.directHost).toBe('Connection refused');
    expect(seen.directPublic).toBe('Network is unreachable');

    await proxy?.close();
    proxy = undefined;
    const lines = logged.map(({ runId, host, port: to, allowed, reason: why, bytesUp, bytesDown, msg }) => ({
      runId,
      host,
      port: to,
      allowed,
      why,
      msg,
      moved: Number(bytesUp) > 0 && Number(bytesDown) > 0,
    }));
    expect(lines).toHaveLength(4);
    expect(lines).toEqual(
      expect.arrayContaining([
        {
          runId: 'run-egress',
          host: '127.0.0.1',
          port,
          allowed: true,
          why: undefined,
          msg: 'skill network connection',
          moved: true,
        },
        {
          runId: 'run-egress',
          host: '127.0.0.1',
          port,
          allowed: true,
          why: undefined,
          msg: 'skill network connection',
          moved: true,
        },
        {
          runId: 'run-egress',
          host: 'example.org',
          port: 80,
          allowed: false,
          why: reason,
          msg: 'skill network connection',
          moved: false,
        },
        {
          runId: 'run-egress',
          host: 'example.org',
          port: 443,
          allowed: false,
          why: reason,
          msg: 'skill network connection',
          moved: false,
        },
      ]),
    );
    for (const line of logged) expect(line.durationMs).toEqual(expect.any(Number));
  });

  it("refuses the sandbox a private address when the operator's switch is off", async () => {
    const socketPath = await startProxy({ allowPrivateAddresses: false });
    const seen = await probe(socketPath, true);
    const reason =
      '127.0.0.1 leads to 127.0.0.1, a private or local address that skills may not reach; only public addresses are allowed';
    expect(seen.plain).toEqual({ status: 403, reason, body: `${reason}\n` });
    expect(seen.tunnel.code).not.toBe(0);
    expect(seen.tunnel.err).toContain('403');
    expect(logged.filter((line) => line.allowed === false)).toHaveLength(4);
  });

  it('reaches nothing without the socket: the forwarder says the proxy is missing, and nothing else answers', async () => {
    const withoutSocket = await probe(undefined, true);
    expect(withoutSocket.plain.status).toBe(502);
    expect(withoutSocket.plain.body).toMatch(/^the network proxy is not reachable from this sandbox/);
    expect(withoutSocket.refusedTls.error).toMatch(/Tunnel connection failed: 502/);
    expect(withoutSocket.directHost).toBe('Connection refused');
    expect(withoutSocket.directPublic).toBe('Network is unreachable');

    const bare = await probe(undefined, false);
    expect(bare.plain.error).toMatch(/Connection refused/);
    expect(bare.refusedTls.error).toMatch(/Connection refused/);
    expect(bare.tunnel.code).not.toBe(0);
    expect([bare.directHost, bare.directPublic]).toEqual(['Connection refused', 'Network is unreachable']);
  });
});

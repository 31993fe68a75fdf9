import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { expect } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { namespaceArgs } from '../../src/sandbox/sandbox.js';
import { BUBBLEWRAP_HERE } from './sandbox.js';

/**
 * A real bubblewrap sandbox with the skill sandbox's own namespaces (no network but its
 * loopback), /usr for python3 and curl, the egress forwarder, and the proxy's socket bound
 * in: what the security suite's network tests run programs in.
 */

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
export const FORWARDER_INSIDE = '/opt/skillet/egress-forwarder.py';
export const SOCKET_INSIDE = '/run/skillet/egress.sock';
/** Whether this machine can run these tests: bubblewrap, python3 and curl. */
export const EGRESS_SANDBOX_HERE = BUBBLEWRAP_HERE && existsSync(PYTHON) && existsSync('/usr/bin/curl');

/** Python that starts the forwarder inside and waits until it listens; a probe script starts with it. */
export const START_FORWARDER = `
import socket, subprocess, time
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
`;

/** The log a proxy is given: pino, as the server's own, its JSON lines pushed to `lines`. */
export function capturingLogger(lines: Record<string, unknown>[]) {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}

/** Runs `script` under the sandbox's python3 with `args`, the socket bound in when given; its stdout. */
export async function inSandbox(script: string, args: string[], socketPath: string | undefined): Promise<string> {
  const base = namespaceArgs([], [], []);
  // The sandbox ends by making its root read only; what this adds goes in before that.
  expect(base.slice(-2)).toEqual(['--remount-ro', '/']);
  expect(base).toContain('--unshare-net');
  const system = ['--ro-bind', '/usr', '/usr'];
  for (const [target, link] of [
    ['usr/lib', '/lib'],
    ['usr/lib64', '/lib64'],
    ['usr/bin', '/bin'],
  ]) {
    system.push('--symlink', target ?? '', link ?? '');
  }
  const bound = [
    ...base.slice(0, -2),
    ...system,
    ...['--ro-bind', path.join(PROJECT_ROOT, 'computer', 'egress-forwarder.py'), FORWARDER_INSIDE],
    ...(socketPath ? ['--bind', socketPath, SOCKET_INSIDE] : []),
    ...['--remount-ro', '/', PYTHON, '-c', script, ...args],
  ];
  const proxyUrl = 'http://127.0.0.1:3128';
  const env = { PATH: '/usr/bin:/bin', http_proxy: proxyUrl, https_proxy: proxyUrl, HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl };
  const { stdout } = await run('/usr/bin/bwrap', bound, { env, timeout: 60_000 });
  return stdout;
}

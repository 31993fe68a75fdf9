import { connect, createServer, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkilletClient } from '../../src/sdk/client.js';
import type { ExecutionEvent } from '../../src/sdk/types.js';
import { createKey, signUp } from '../helpers/factories.js';
import { client } from '../helpers/http.js';
import { freePort, startServer, type TestServer } from '../helpers/server.js';

/** A TCP relay in front of the server whose live connections the test can cut at will. */
async function cuttableProxy(port: number) {
  const sockets = new Set<Socket>();
  let target = 0;
  const proxy: Server = createServer((inbound) => {
    const outbound = connect(target, '127.0.0.1');
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((resolve) => proxy.listen(port, '127.0.0.1', resolve));
  return {
    setTarget: (value: number) => {
      target = value;
    },
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () => new Promise((resolve) => proxy.close(resolve)),
  };
}

let server: TestServer;
let proxy: Awaited<ReturnType<typeof cuttableProxy>>;
let sdk: SkilletClient;

beforeAll(async () => {
  const proxyPort = await freePort();
  proxy = await cuttableProxy(proxyPort);
  server = await startServer({ STREAM_URL: `http://127.0.0.1:${proxyPort}`, RATE_LIMIT_REST_PER_MINUTE: '100000' });
  proxy.setTarget(Number(new URL(server.url).port));
  const api = client(server.url);
  const person = await signUp(api);
  sdk = new SkilletClient({ baseUrl: `http://127.0.0.1:${proxyPort}`, apiKey: (await createKey(api, person)).key });
});
afterAll(async () => {
  proxy.cut();
  await proxy.close();
  await server.close();
});

describe('the SDK event iterator', () => {
  it('yields every event exactly once, in order, when the connection is cut in the middle of a run', async () => {
    const execution = await sdk.executions.create('ticker', '40 25');
    await sdk.executions.send(execution.id, '40 25');
    const seen: ExecutionEvent[] = [];
    for await (const event of sdk.executions.events(execution.id)) {
      seen.push(event);
      // Cut twice mid-run: after the 10th event and after the 25th.
      if (seen.length === 10 || seen.length === 25) proxy.cut();
    }
    expect(seen.map((event) => event.sequence)).toEqual(Array.from({ length: 44 }, (_, i) => i + 1));
    expect(seen.at(-1)?.type).toBe('session.status_idle');
    const replay: ExecutionEvent[] = [];
    for await (const event of sdk.executions.events(execution.id)) replay.push(event);
    expect(replay).toEqual(seen);
  });
});

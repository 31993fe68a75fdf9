import { connect, createServer, type Server, type Socket } from 'node:net';
import { describe, expect } from 'vitest';
import { SkilletClient } from '../../../src/sdk/client.js';
import type { ExecutionEvent } from '../../../src/sdk/types.js';
import { createKey, signUp } from '../../helpers/factories.js';
import { withServer } from '../../helpers/fixtures.js';
import { freePort } from '../../helpers/server.js';

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
    url: `http://127.0.0.1:${port}`,
    setTarget: (value: number) => {
      target = value;
    },
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

const it = withServer()
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
  .extend('proxy', { scope: 'file' }, async ({}, { onCleanup }) => {
    const proxy = await cuttableProxy(await freePort());
    onCleanup(() => proxy.close());
    return proxy;
  })
  // The server hands out the relay as its stream URL.
  .extend('serverSettings', { scope: 'file' }, ({ proxy }) => ({
    env: { STREAM_URL: proxy.url, RATE_LIMIT_REST_PER_MINUTE: '100000' },
    parts: {},
  }))
  // A person's SDK, talking to the server through the relay.
  .extend('sdk', { scope: 'file' }, async ({ server, api, proxy }, { onCleanup }) => {
    proxy.setTarget(Number(new URL(server.url).port));
    // Torn down first: the relayed connections are cut before the server closes.
    onCleanup(() => proxy.cut());
    const person = await signUp(api);
    return new SkilletClient({ baseUrl: proxy.url, apiKey: (await createKey(api, person)).key });
  });

describe('the SDK event iterator', () => {
  it('yields every event exactly once, in order, when the connection is cut in the middle of a run', async ({ sdk, proxy }) => {
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

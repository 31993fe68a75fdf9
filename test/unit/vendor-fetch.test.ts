import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { vendorFetch } from '../../src/models/vendor-fetch.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    ),
  );
});

interface Seen {
  method: string;
  headers: IncomingMessage['headers'];
  body: string;
  socket: number;
}

/** A vendor on 127.0.0.1 answering with `answer`; what each request looked like, and on which connection, is kept. */
async function vendor(answer: (response: ServerResponse, seen: Seen) => void) {
  const seen: Seen[] = [];
  const sockets = new WeakMap<object, number>();
  let connections = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (!sockets.has(request.socket)) sockets.set(request.socket, ++connections);
      const one = {
        method: request.method ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString(),
        socket: sockets.get(request.socket) ?? 0,
      };
      seen.push(one);
      answer(response, one);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const SSE = 'event: message_start\ndata: {"type":"message_start"}\n\n'.repeat(50);

describe('the vendor SDKs’ transport', () => {
  it('sends the method, headers and body with its length, and streams the answer back as a Response', async () => {
    const { url, seen } = await vendor((response) => {
      response.writeHead(201, { 'content-type': 'text/event-stream', 'request-id': 'req_1' });
      response.write(SSE.slice(0, 100));
      setTimeout(() => response.end(SSE.slice(100)), 5);
    });
    const body = JSON.stringify({ text: 'héllo' });
    const answer = await vendorFetch(`${url}/v1/messages`, { method: 'post', headers: { 'x-api-key': 'k' }, body });
    expect(answer.status).toBe(201);
    expect(answer.headers.get('request-id')).toBe('req_1');
    expect(await answer.text()).toBe(SSE);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      body,
      headers: { 'x-api-key': 'k', 'content-length': String(Buffer.byteLength(body)) },
    });
    expect(seen[0]?.headers['transfer-encoding']).toBeUndefined();
  });

  it('decodes an answer that came compressed, gzip or brotli', async () => {
    const { url } = await vendor((response, seen) => {
      const brotli = seen.body === 'br';
      response.writeHead(200, { 'content-encoding': brotli ? 'br' : 'gzip' });
      response.end(brotli ? brotliCompressSync(SSE) : gzipSync(SSE));
    });
    expect(await (await vendorFetch(url, { method: 'POST', body: 'gzip' })).text()).toBe(SSE);
    expect(await (await vendorFetch(url, { method: 'POST', body: 'br' })).text()).toBe(SSE);
  });

  it('keeps its connection for the next request, and opens a new one once the vendor closed it idle', async () => {
    const { url, seen } = await vendor((response, one) => {
      // As a balancer does: the connection closed a little after its second answer, without a word to the client.
      const socket = response.socket;
      response.end('ok');
      if (one.socket === 1 && seen.length === 2) setTimeout(() => socket?.destroy(), 20);
    });
    await (await vendorFetch(url)).text();
    await (await vendorFetch(url)).text();
    await new Promise((resolve) => setTimeout(resolve, 150));
    await (await vendorFetch(url)).text();
    expect(seen.map((one) => one.socket)).toEqual([1, 1, 2]);
  });

  it('answers a status without a body with an empty Response', async () => {
    const { url } = await vendor((response) => {
      response.writeHead(204);
      response.end();
    });
    const answer = await vendorFetch(url, { method: 'DELETE' });
    expect(answer.status).toBe(204);
    expect(answer.body).toBeNull();
  });

  it('rejects as aborted before the answer, and errors the body when aborted during it', async () => {
    const { url } = await vendor((response) => {
      response.writeHead(200);
      response.write('first part');
    });
    const early = new AbortController();
    early.abort();
    await expect(vendorFetch(url, { signal: early.signal })).rejects.toMatchObject({ name: 'AbortError' });

    const late = new AbortController();
    const answer = await vendorFetch(url, { signal: late.signal });
    const reader = answer.body?.getReader() ?? expect.fail('no body');
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('first part');
    late.abort();
    await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('answers a redirect as it came, without following it', async () => {
    const { url, seen } = await vendor((response) => {
      response.writeHead(301, { location: 'http://127.0.0.1:9/elsewhere' });
      response.end();
    });
    const answer = await vendorFetch(`${url}/v1/messages`, { method: 'POST', body: '{}' });
    expect([answer.status, answer.headers.get('location')]).toEqual([301, 'http://127.0.0.1:9/elsewhere']);
    expect(seen).toHaveLength(1);
  });

  it('rejects with the connection’s own failure when nothing listens', async () => {
    const { url } = await vendor((response) => response.end());
    const closed = servers.pop();
    await new Promise((resolve) => closed?.close(resolve));
    await expect(vendorFetch(url)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('checks the vendor’s certificate: a server whose certificate no authority signed is refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vendor-tls-'));
    try {
      const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
      execFileSync(
        'openssl',
        [
          ...['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1'],
          ...['-keyout', key, '-out', cert, '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
        ],
        { stdio: 'ignore' },
      );
      let answered = 0;
      const server = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (_request, response) => {
        answered++;
        response.end('the key');
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/v1/messages`;
      await expect(vendorFetch(url, { method: 'POST', body: '{}' })).rejects.toMatchObject({
        code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
      });
      expect(answered).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

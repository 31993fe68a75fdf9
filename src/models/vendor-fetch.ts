import http from 'node:http';
import https from 'node:https';
import { pipeline, Readable, type Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';

/**
 * A free socket is closed after this long idle, before a vendor's balancer closes it under
 * the next request (undici's default keep-alive time, which `fetch` used).
 */
const IDLE_SOCKET_MS = 4_000;

const transports: Record<string, { request: typeof http.request; agent: http.Agent } | undefined> = {
  'http:': { request: http.request, agent: new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }) },
  'https:': { request: https.request, agent: new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS }) },
};

/** Statuses whose answer has no body, which a Response refuses to be given one for. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

const DECODERS: Record<string, (() => Transform) | undefined> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** The body as the vendor meant it: decoded when it came compressed, as `fetch` would. */
function decoded(response: http.IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder = DECODERS[encoding];
  return decoder ? pipeline(response, decoder(), () => undefined) : response;
}

/** What an aborted request fails with: the signal's reason, as `fetch` rejects with it, when that is an error. */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}

function responseHeaders(response: http.IncomingMessage): Headers {
  const headers = new Headers();
  const raw = response.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
  return headers;
}

/**
 * The vendor SDKs' transport: their requests (a method, headers, a JSON body) over
 * `node:http` with kept-alive sockets, answered as a `Response` whose body streams. The same
 * SDK over Node's `fetch` spent 25-35% more CPU a call, most of it in undici's request
 * machinery. A body that is not a string (an upload, a stream) goes through `fetch` as before.
 * Aborting the signal destroys the request, before or during its answer, as `fetch` does.
 */
export function vendorFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  const { body } = init;
  if (input instanceof Request || (body !== undefined && body !== null && typeof body !== 'string')) {
    return fetch(input, init);
  }
  const url = new URL(input);
  const transport = transports[url.protocol];
  if (!transport) return fetch(input, init);
  const method = (init.method ?? 'GET').toUpperCase();
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, name) => {
    headers[name] = value;
  });
  // Sent with its length, as `fetch` sends a string, not chunked: local model servers differ on chunked requests.
  const payload = body === undefined || body === null ? undefined : Buffer.from(body);
  if (payload) headers['content-length'] = String(payload.length);
  const { signal } = init;
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const request = transport.request(url, { method, headers, agent: transport.agent });
    let answer: http.IncomingMessage | undefined;
    // As `fetch`: the request, or its answer's body once it came, fails with the signal's reason.
    const abort = () => {
      const reason = abortReason(signal as AbortSignal);
      request.destroy(reason);
      answer?.destroy(reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
    request.once('close', () => signal?.removeEventListener('abort', abort));
    // Not once: a socket that fails after the answer began errors its body, and may error here again.
    request.on('error', reject);
    request.once('response', (response) => {
      answer = response;
      const status = response.statusCode ?? 0;
      const stream = NO_BODY.has(status) || method === 'HEAD' ? null : Readable.toWeb(decoded(response));
      if (!stream) response.resume();
      resolve(
        new Response(stream as ReadableStream<Uint8Array> | null, {
          status,
          statusText: response.statusMessage ?? '',
          headers: responseHeaders(response),
        }),
      );
    });
    request.end(payload);
  });
}

import type { TestApp } from '../helpers/server.js';
import type { FuzzRequest } from './openapi-arbitraries.js';
import type { DocumentedOperation } from './openapi-document.js';

/** One answer, as the properties read it: the body parsed when it is JSON, and every header as text. */
export interface Answer {
  status: number;
  contentType: string;
  body: unknown;
  /** The body as sent and every header value, for the leak check. */
  text: string;
}

function parsed(contentType: string, text: string): unknown {
  if (!contentType.startsWith('application/json')) return text;
  try {
    return JSON.parse(text);
  } catch {
    // A body that says it is JSON and is not: the schema check reports it.
    return text;
  }
}

/** How long a stream that opened is read before the client leaves: long enough for its replay. */
const STREAM_READ_MS = 150;

/**
 * A stream never ends by itself, and one route is served ahead of Fastify (where inject
 * cannot reach), so streaming operations go over the server's socket and are read briefly;
 * the rest go through `app.inject`, which is several times faster.
 */
export async function send(
  server: TestApp & { url?: string },
  operation: DocumentedOperation,
  request: FuzzRequest,
): Promise<Answer> {
  if (operation.streams) {
    if (!server.url) throw new Error(`${operation.id} streams: it needs a listening server`);
    return sendOverSocket(server.url, request);
  }
  const response = await server.app.inject({
    method: request.method as 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: request.url,
    headers: request.headers,
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  });
  const contentType = String(response.headers['content-type'] ?? '');
  const headerText = Object.entries(response.headers)
    .map(([name, value]) => `${name}: ${String(value)}`)
    .join('\n');
  return {
    status: response.statusCode,
    contentType,
    body: parsed(contentType, response.body),
    text: `${headerText}\n${response.body}`,
  };
}

async function sendOverSocket(baseUrl: string, request: FuzzRequest): Promise<Answer> {
  const abort = new AbortController();
  const response = await fetch(baseUrl + request.url, {
    method: request.method,
    headers: request.headers,
    signal: abort.signal,
    ...(request.payload === undefined ? {} : { body: request.payload }),
  });
  const contentType = response.headers.get('content-type') ?? '';
  const headerText = [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n');
  let text = '';
  if (contentType.startsWith('text/event-stream') && response.body) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    const stop = setTimeout(() => abort.abort(), STREAM_READ_MS);
    try {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value);
    } catch {
      // Aborted: the client has read what it came for.
    } finally {
      clearTimeout(stop);
    }
  } else {
    text = await response.text();
  }
  return { status: response.status, contentType, body: parsed(contentType, text), text: `${headerText}\n${text}` };
}

import type { FastifyInstance } from 'fastify';

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as-is instead of JSON-encoding `body`. */
  raw?: string;
}

/** One request as the clients send it: JSON-encoded `body` (or `raw` as-is) with its content type. */
function outgoing(options: RequestOptions): { headers: Record<string, string>; body?: string } {
  const hasBody = options.raw !== undefined || options.body !== undefined;
  return {
    headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
    ...(hasBody ? { body: options.raw ?? JSON.stringify(options.body) } : {}),
  };
}

function reply<T>(status: number, headers: Headers, text: string): Reply<T> {
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (an HTML page, say): keep the text.
  }
  return { status, headers, body: body as T, text };
}

type Send = <T>(method: string, path: string, options?: RequestOptions) => Promise<Reply<T>>;

function methods(send: Send) {
  return {
    get: <T = unknown>(path: string, options?: RequestOptions) => send<T>('GET', path, options),
    post: <T = unknown>(path: string, options?: RequestOptions) => send<T>('POST', path, options),
    put: <T = unknown>(path: string, options?: RequestOptions) => send<T>('PUT', path, options),
    patch: <T = unknown>(path: string, options?: RequestOptions) => send<T>('PATCH', path, options),
    delete: <T = unknown>(path: string, options?: RequestOptions) => send<T>('DELETE', path, options),
  };
}

/** A small fetch wrapper: JSON in, JSON (or text) out, status and headers kept. */
export function client(baseUrl: string): Client {
  return methods(async (method, path, options = {}) => {
    const response = await fetch(baseUrl + path, { method, ...outgoing(options) });
    return reply(response.status, response.headers, await response.text());
  });
}

/** The same client over `app.inject`: no socket, so it needs no listening server. */
export function injectClient(app: FastifyInstance): Client {
  return methods(async (method, path, options = {}) => {
    const request = outgoing(options);
    const response = await app.inject({
      method: method as 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
      url: path,
      headers: request.headers,
      ...(request.body === undefined ? {} : { payload: request.body }),
    });
    const headers = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) headers.append(name, String(one));
    }
    return reply(response.statusCode, headers, response.body);
  });
}

export type Client = ReturnType<typeof methods>;

/** The same text with its last character changed, for tampering with a signature. */
export function tamper(text: string): string {
  const last = text.at(-1);
  return `${text.slice(0, -1)}${last === '0' ? '1' : '0'}`;
}

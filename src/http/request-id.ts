import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * What a client's own id may be: it is echoed in a header and written into every log line,
 * so anything that could split a header or a log line, or swell either, is replaced.
 */
const WELL_FORMED = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The client's id when it is one value and well formed, else a fresh UUID. */
export function requestIdFrom(given: string | readonly string[] | undefined): string {
  const value = Array.isArray(given) ? (given.length === 1 ? given[0] : undefined) : given;
  return typeof value === 'string' && WELL_FORMED.test(value) ? value : randomUUID();
}

/**
 * The id the server gave a request as it arrived. The HTTP server names each request once,
 * before the front routes or Fastify see it, so both log and answer with the same id. Kept
 * on the request itself: a WeakMap entry per request cost the collector more.
 */
const NAME = Symbol('skillet.requestId');
type NamedRequest = IncomingMessage & { [NAME]?: string };

/**
 * Names a request from its raw headers (never `request.headers`: see front-routes.ts). The
 * answer carries the name from whatever answers it (the gate in plumbing.ts, a front
 * route): a header set on the bare response here would send every Fastify answer down
 * Node's slower path of merging headers.
 */
export function nameRequest(request: IncomingMessage): string {
  const raw = request.rawHeaders;
  let given: string | undefined;
  let times = 0;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === REQUEST_ID_HEADER.length && name.toLowerCase() === REQUEST_ID_HEADER) {
      given = raw[i + 1];
      times++;
    }
  }
  const id = requestIdFrom(times === 1 ? given : undefined);
  (request as NamedRequest)[NAME] = id;
  return id;
}

/** Fastify's genReqId: the server's name for the request, or (app.inject, no server) one made here. */
export function requestIdOf(request: IncomingMessage): string {
  return (request as NamedRequest)[NAME] ?? requestIdFrom(request.headers[REQUEST_ID_HEADER]);
}

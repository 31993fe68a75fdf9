import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * What a client's own id may be: it is echoed in a header and written into every log line,
 * so anything that could split a header or a log line, or swell either, is replaced.
 */
const WELL_FORMED = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The first 20 of a fresh id's 32 hex digits: random, drawn once per process, laid out as a
 * UUID of version 8 (RFC 9562's "custom") with its variant bits. The last 12 count this
 * process's requests. An id only has to be unique, so that a request's log lines can be
 * found, and it is no secret (a client may choose its own); a random UUID per request cost
 * about five times as much as this, on routes whose whole work is a few microseconds.
 */
const PROCESS_PART = (() => {
  const hex = randomBytes(10).toString('hex');
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-`;
})();
let issued = 0;

/** A request id no other request of any process is given (48 bits of count: never wraps). */
export function freshRequestId(): string {
  issued++;
  return PROCESS_PART + issued.toString(16).padStart(12, '0');
}

/** The client's id when it is one value and well formed, else a fresh one. */
export function requestIdFrom(given: string | readonly string[] | undefined): string {
  const value = Array.isArray(given) ? (given.length === 1 ? given[0] : undefined) : given;
  return typeof value === 'string' && WELL_FORMED.test(value) ? value : freshRequestId();
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
 * answer carries the name from whatever answers it (the gate in identity/request-gate.ts, a front
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

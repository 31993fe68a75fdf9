import { createServer, type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger, FastifyServerFactory } from 'fastify';
import { writeFrontError } from './error-writer.js';
import { nameRequest } from './request-id.js';

/**
 * A route answered on the bare Node request, ahead of Fastify's routing. Only for requests
 * that stay open for a long time in great numbers (event streams): Fastify keeps its
 * request, reply and logger objects alive for as long as a response is open. Returns false
 * for requests it does not serve, which then go to Fastify.
 */
export type FrontRoute = (request: IncomingMessage, response: ServerResponse) => boolean;

/** Fastify's own defaults, which it applies only to servers it creates itself. */
const KEEP_ALIVE_TIMEOUT_MS = 72_000;
/** Node's default: a client has this long for its headers, within the request's own deadline. */
const HEADERS_TIMEOUT_MS = 60_000;
/** How often Node looks for requests past their deadline (its default of 30 s would double a short one). */
const DEADLINE_CHECK_MS = 1_000;

/**
 * A response that closes its connection when it goes out before its request's body has all
 * arrived: a refusal by a hook that runs before the body is read (a rate limit, a missing
 * credential). Node would otherwise keep the connection to read and discard the rest of the
 * body, for as long as the client takes to trickle it in.
 */
class ClosingResponse extends ServerResponse {
  override writeHead(
    statusCode: number,
    reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
    headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
  ): this {
    if (!this.req.complete && declaresBody(this.req)) this.shouldKeepAlive = false;
    if (typeof reasonOrHeaders === 'string') return super.writeHead(statusCode, reasonOrHeaders, headers);
    return super.writeHead(statusCode, reasonOrHeaders);
  }
}

function declaresBody(request: IncomingMessage): boolean {
  if (headerValues(request, 'transfer-encoding').length > 0) return true;
  return headerValues(request, 'content-length').some((length) => length.trim() !== '0');
}

/**
 * Connections that have not sent a request yet. Node's server.close() waits for them, and
 * nothing else would close one, so a client that connects ahead of need (fetch does) or
 * never speaks would hold a shutdown open for good.
 */
export class SilentConnections {
  readonly #sockets = new Set<Socket>();
  // One listener shared by every socket, which it gets as `this`: nothing per connection
  // outlives the connection's first request.
  readonly #onClose: (this: Socket) => void;

  constructor() {
    const sockets = this.#sockets;
    this.#onClose = function (this: Socket) {
      sockets.delete(this);
    };
  }

  connected(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', this.#onClose);
  }

  spoke(socket: Socket): void {
    if (this.#sockets.delete(socket)) socket.off('close', this.#onClose);
  }

  closeAll(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }
}

/** Told of each request a front route took (metrics count them, as Fastify's hooks cannot). */
export type FrontRouteObserver = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * An HTTP server that names each request (x-request-id), then offers it to the front
 * routes first, then to Fastify.
 */
export function serverWithFrontRoutes(
  routes: FrontRoute[],
  silent: SilentConnections,
  requestTimeoutMs: number,
  observe?: FrontRouteObserver,
): FastifyServerFactory {
  return (fastifyHandler) => {
    const options = {
      ServerResponse: ClosingResponse,
      // Bounds how long a request may take to arrive, body included (a slow body is not a
      // stream: streams are responses, and an upgraded socket leaves Node's deadline list).
      requestTimeout: requestTimeoutMs,
      headersTimeout: Math.min(HEADERS_TIMEOUT_MS, requestTimeoutMs),
      connectionsCheckingInterval: Math.min(DEADLINE_CHECK_MS, requestTimeoutMs),
    };
    const server = createServer(options, (request, response) => {
      silent.spoke(request.socket);
      nameRequest(request);
      for (const route of routes) {
        if (!route(request, response)) continue;
        observe?.(request, response);
        return;
      }
      fastifyHandler(request, response);
    });
    server.on('connection', (socket: Socket) => silent.connected(socket));
    server.keepAliveTimeout = KEEP_ALIVE_TIMEOUT_MS;
    return server;
  };
}

/**
 * A request header's values, read from the raw list: reading `request.headers` would build
 * an object that then lives as long as the request, which for a stream is hours.
 */
export function headerValues(request: IncomingMessage, name: string): string[] {
  const raw = request.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === name) values.push(raw[i + 1] as string);
  }
  return values;
}

/**
 * The client's address as Fastify's `request.ip` gives it: the socket's peer, or behind a
 * trusted proxy the first address of X-Forwarded-For.
 */
export function clientAddress(request: IncomingMessage, trustProxy: boolean): string {
  const peer = request.socket.remoteAddress ?? '';
  if (!trustProxy) return peer;
  const first = headerValues(request, 'x-forwarded-for').join(',').split(',')[0]?.trim();
  return first || peer;
}

/**
 * A path segment that is a secret in itself: a local checkout's session id is all it takes
 * to pay that checkout (in test mode, to grant credits) or to cancel it.
 */
const CHECKOUT_SESSION = /^\/billing\/checkout\/[^/]+/;

/**
 * The path as logged or reported: never its query string, which holds signatures, and
 * never a checkout session id.
 */
export function pathOf(url: string | undefined): string {
  const path = (url ?? '/').split('?')[0] ?? '/';
  return path.replace(CHECKOUT_SESSION, '/billing/checkout/:sessionId');
}

/** Writes a thrown error the way Fastify's error handler would, in the standard envelope. */
export function sendError(
  log: FastifyBaseLogger,
  request: IncomingMessage,
  response: ServerResponse,
  error: unknown,
  requestId: string,
  headers: Record<string, string>,
): void {
  writeFrontError(log, { requestId, method: request.method, path: pathOf(request.url) }, response, error, headers);
}

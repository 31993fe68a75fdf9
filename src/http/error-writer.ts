import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { HeadersTooLarge, InvalidInput, RequestTimeout } from '../errors.js';
import { type RenderedError, renderError } from './error-renderer.js';
import type { ErrorFamily } from './route-config.js';

/** Where an error response goes: a Fastify reply, a bare Node response, or a bare socket. */
export interface ErrorSink {
  send(status: number, headers: Record<string, string>, body: string): void;
}

/**
 * The one way a non-HTML error reaches the wire: Fastify's error handler, its framework
 * errors (a URL it cannot decode), the routes served ahead of Fastify and requests Node's
 * parser refuses all come through here, so every one of them speaks the family's envelope.
 */
export function writeError(
  sink: ErrorSink,
  error: unknown,
  family: ErrorFamily,
  headers: Record<string, string> = {},
): RenderedError {
  const rendered = renderError(error, family);
  const body = JSON.stringify(rendered.body);
  sink.send(rendered.status, { ...headers, ...rendered.headers, 'content-type': 'application/json; charset=utf-8' }, body);
  return rendered;
}

export function replySink(reply: FastifyReply): ErrorSink {
  return { send: (status, headers, body) => void reply.status(status).headers(headers).send(body) };
}

/** A response whose headers already went out can only be cut off: its client sees a broken stream. */
function responseSink(response: ServerResponse): ErrorSink {
  return {
    send(status, headers, body) {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
      response.end(body);
    },
  };
}

/** A connection whose bytes never made a request: the answer is written by hand, then it is closed. */
function socketSink(socket: Duplex): ErrorSink {
  return {
    send(status, headers, body) {
      if (socket.writable) {
        const lines = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' });
        const head = lines.map(([name, value]) => `${name}: ${value}\r\n`).join('');
        socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
      }
      socket.destroy();
    },
  };
}

/** An error answered on a connection taken out of Node's HTTP handling (an upgrade), which is then closed. */
export function writeSocketError(socket: Duplex, error: unknown, headers: Record<string, string>): void {
  writeError(socketSink(socket), error, 'standard', headers);
}

/** What Node's HTTP parser refused, as one of our errors. */
function parserError(error: NodeJS.ErrnoException) {
  if (error.code === 'HPE_HEADER_OVERFLOW') return new HeadersTooLarge('Request headers are too large');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new RequestTimeout('The request did not arrive in time. Send it again, all at once.');
  return new InvalidInput('Malformed HTTP request');
}

/** Node's `clientError`: a request the HTTP parser could not read (Fastify's default answers in its own shape). */
export function clientErrorWriter(log: FastifyBaseLogger) {
  return (error: NodeJS.ErrnoException, socket: Duplex): void => {
    // A reset connection has nobody to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    log.debug({ code: error.code }, 'unreadable request refused');
    writeError(socketSink(socket), parserError(error), 'standard');
  };
}

/** Writes an error for a request served ahead of Fastify, logged as Fastify would log it. */
export function writeFrontError(
  log: FastifyBaseLogger,
  line: { requestId?: string; method: string | undefined; path: string },
  response: ServerResponse,
  error: unknown,
  headers: Record<string, string>,
): void {
  const rendered = writeError(responseSink(response), error, 'standard', headers);
  const entry = { ...line, statusCode: rendered.status };
  if (rendered.unexpected) log.error({ ...entry, err: error }, 'request failed');
  else log.info(entry, 'request refused');
}

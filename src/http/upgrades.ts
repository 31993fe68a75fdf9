import { type IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { NotFound } from '../errors.js';
import { writeSocketError } from './error-writer.js';
import { pathOf } from './front-routes.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';

const NO_SOCKET_HERE = new NotFound(
  'Nothing at this address takes a WebSocket connection. Ask the API for a control-plane address and connect to that.',
);

/**
 * The connection upgrades of `server` meant for `socketPath`, re-emitted on a server of their
 * own (which never listens) for the websocket plugin to take; an upgrade to any other
 * address is answered 404 here, and its connection closed.
 *
 * Why: the plugin, given the server's own upgrades, sends each through Fastify's routing,
 * so it hooks every request of the scope it is registered in to tell an upgrade from a
 * plain request (two hook calls and a handler wrapper on each). Given only the upgrades of
 * its own routes, it can live in a scope holding those alone.
 */
export function upgradesFor(server: Server, socketPath: string, log: FastifyBaseLogger): Server {
  const accepted = new Server();
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // The path as it is logged (no query string, no checkout session id); the socket's own path has neither.
    const path = pathOf(request.url);
    if (path === socketPath) {
      accepted.emit('upgrade', request, socket, head);
      return;
    }
    // Node leaves an upgraded socket without an error listener.
    socket.on('error', () => socket.destroy());
    log.info({ path }, 'connection upgrade refused: no socket at this address');
    writeSocketError(socket, NO_SOCKET_HERE, { [REQUEST_ID_HEADER]: requestIdOf(request) });
  });
  return accepted;
}

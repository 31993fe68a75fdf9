import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { WebSocket } from 'ws';
import type { AppContext } from '../context.js';
import { Unauthorized } from '../errors.js';
import { callerOf } from '../http/credentials.js';
import { type CredentialRef, isCredentialLive } from '../identity/callers.js';
import type { ControlMessage } from './control-messages.js';
import { CONTROL_URL_LIFETIME_MS, signedControlUrl, verifyControlUrl } from './control-url.js';

/** A client this far behind is dropped (it reconnects); it never slows the others. */
const SLOW_CLIENT_BYTES = 1024 * 1024;

const SubscribeUrl = Type.Object({ url: Type.String(), expiresInMs: Type.Integer() });
const UpgradeQuery = Type.Object({
  c: Type.Optional(Type.String({ maxLength: 1000 })),
  ts: Type.Optional(Type.String({ maxLength: 32 })),
  sig: Type.Optional(Type.String({ maxLength: 128 })),
});

declare module 'fastify' {
  interface FastifyRequest {
    controlChannel?: CredentialRef;
  }
}

function keepAlive(socket: WebSocket, intervalMs: number): () => void {
  let alive = true;
  socket.on('pong', () => {
    alive = true;
  });
  const timer = setInterval(() => {
    if (!alive) {
      socket.terminate();
      return;
    }
    alive = false;
    socket.ping();
  }, intervalMs);
  return () => clearInterval(timer);
}

export function controlPlaneRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.get(
      '/api/v1/events/subscribe-url',
      { config: { auth: 'user' }, schema: { response: { 200: SubscribeUrl } } },
      async (request) => ({ url: signedControlUrl(ctx, callerOf(request)), expiresInMs: CONTROL_URL_LIFETIME_MS }),
    );

    app.get(
      '/events/ws',
      {
        websocket: true,
        config: { auth: 'public' },
        schema: { hide: true, querystring: UpgradeQuery },
        // Before the upgrade: a refused request gets a plain HTTP 401 and no socket.
        preValidation: async (request) => {
          const ref = verifyControlUrl(ctx, request.query as { c?: string; ts?: string; sig?: string });
          if (!(await isCredentialLive(ctx, ref))) throw new Unauthorized('This credential no longer reaches that workspace');
          request.controlChannel = ref;
        },
      },
      (socket, request) => {
        const channel = request.controlChannel;
        if (!channel) {
          socket.close(1008, 'unauthorized');
          return;
        }
        const forward = (message: ControlMessage) => {
          if (socket.readyState !== socket.OPEN) return;
          if (socket.bufferedAmount > SLOW_CLIENT_BYTES) {
            socket.terminate();
            return;
          }
          socket.send(JSON.stringify(message));
        };
        ctx.control.subscribe(channel.workspaceId, forward);
        const stopPinging = keepAlive(socket, ctx.config.controlPingMs);
        socket.on('close', () => {
          ctx.control.unsubscribe(channel.workspaceId, forward);
          stopPinging();
        });
      },
    );
  };
}

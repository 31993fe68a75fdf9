import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { WebSocket } from 'ws';
import type { AppContext } from '../context.js';
import { Unauthorized } from '../errors.js';
import type { CredentialRef } from '../identity/callers.js';
import { isCredentialLive } from '../identity/credential-strategies.js';
import { callerOf } from '../identity/credentials.js';
import type { ControlMessage } from '../ports/channels.js';
import { credentialChannel } from '../realtime/control-messages.js';
import { SubscribeUrl } from '../sdk/schemas/executions.js';
import { UpgradeQuery } from './control-plane.schemas.js';
import { CONTROL_SOCKET_PATH, CONTROL_URL_LIFETIME_MS, signedControlUrl, verifyControlUrl } from './control-url.js';

/** A client this far behind is dropped (it reconnects); it never slows the others. */
const SLOW_CLIENT_BYTES = 1024 * 1024;
/**
 * How a socket whose credential was revoked is closed: a code of the application range
 * that reads like HTTP 401, since a new upgrade with that credential is refused with one.
 */
const REVOKED = { code: 4401, reason: 'credential revoked' } as const;

/** The request decoration that carries an upgrade's checked credential to its socket. */
const CONTROL_CHANNEL = 'controlChannel';

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
    app.decorateRequest(CONTROL_CHANNEL, null);

    app.get(
      '/api/v1/events/subscribe-url',
      { config: { auth: 'user' }, schema: { response: { 200: SubscribeUrl } } },
      async (request) => ({ url: signedControlUrl(ctx, callerOf(request)), expiresInMs: CONTROL_URL_LIFETIME_MS }),
    );

    app.get(
      CONTROL_SOCKET_PATH,
      {
        websocket: true,
        config: { auth: 'public' },
        schema: { hide: true, querystring: UpgradeQuery },
        // Before the upgrade: a refused request gets a plain HTTP 401 and no socket.
        preValidation: async (request) => {
          const ref = verifyControlUrl(ctx, request.query as { c?: string; ts?: string; sig?: string });
          if (!(await isCredentialLive(ctx, ref))) throw new Unauthorized('This credential no longer reaches that workspace');
          request.setDecorator(CONTROL_CHANNEL, ref);
        },
      },
      (socket, request) => {
        // Set by preValidation, which refuses the upgrade unless it could set it.
        const channel = request.getDecorator<CredentialRef>(CONTROL_CHANNEL);
        const forward = (message: ControlMessage) => {
          if (socket.readyState !== socket.OPEN) return;
          if (socket.bufferedAmount > SLOW_CLIENT_BYTES) {
            socket.terminate();
            return;
          }
          socket.send(JSON.stringify(message));
        };
        // The socket is registered under its credential too, so revoking that credential
        // (announced on the control channel, which a cluster shares) closes it.
        const ownChannel = credentialChannel(channel.credentialId);
        const revoked = () => socket.close(REVOKED.code, REVOKED.reason);
        ctx.control.subscribe(channel.workspaceId, forward);
        ctx.control.subscribe(ownChannel, revoked);
        const stopPinging = keepAlive(socket, ctx.config.controlPingMs);
        socket.on('close', () => {
          ctx.control.unsubscribe(channel.workspaceId, forward);
          ctx.control.unsubscribe(ownChannel, revoked);
          stopPinging();
        });
        // A revocation between the check before the upgrade and the subscription just made
        // was announced to no one: looked at once more, now that it would be heard.
        isCredentialLive(ctx, channel).then(
          (live) => {
            if (!live) revoked();
          },
          (error: unknown) => {
            request.log.error({ err: error }, 'control-plane credential check failed');
            socket.close(1011, 'internal error');
          },
        );
      },
    );
  };
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { callerOf } from '../identity/credentials.js';
import { limitPoll } from '../identity/request-limits.js';
import { ActivationDetailsSchema, CreatedActivation, PollResponse } from '../sdk/schemas/activation.js';
import { Success } from '../sdk/schemas/common.js';
import { sha256Hex } from '../secrets.js';
import { confirmActivation, createActivation, denyActivation, lookupActivation } from './activation.js';
import { CodeBody, CodeQuery, PollBody } from './activation.schemas.js';
import { clientInfoOf } from './client-info.js';
import { pollActivation } from './poll.js';

export function activationRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  // The app's approval screen; /activate stays as the page that works without JavaScript.
  const verificationUrl = `${ctx.config.publicUrl}/app/activate`;

  return async (app) => {
    app.post(
      '/activate',
      { config: { auth: 'public', rateLimit: 'activation-create' }, schema: { response: { 200: CreatedActivation } } },
      async (request) => {
        const created = await createActivation(ctx, clientInfoOf(request));
        return {
          device_code: created.deviceCode,
          user_code: created.userCode,
          verification_url: verificationUrl,
          verification_url_complete: `${verificationUrl}?code=${created.userCode}`,
          app_download_url: ctx.config.appDownloadUrl,
          expires_in: created.expiresIn,
          interval: ctx.config.rateLimits.pollIntervalSeconds,
        };
      },
    );

    app.post(
      '/activate/poll',
      { config: { auth: 'public', rateLimit: 'activation-poll' }, schema: { body: PollBody, response: { 200: PollResponse } } },
      async (request, reply) => {
        const deviceCodeHash = sha256Hex(request.body.device_code);
        await limitPoll(ctx, reply, deviceCodeHash);
        return pollActivation(ctx, deviceCodeHash);
      },
    );

    app.get(
      '/activate/lookup',
      { config: { auth: 'session' }, schema: { querystring: CodeQuery, response: { 200: ActivationDetailsSchema } } },
      async (request) => lookupActivation(ctx, callerOf(request), request.query.code),
    );

    app.post(
      '/activate/confirm',
      { config: { auth: 'session' }, schema: { body: CodeBody, response: { 200: Success } } },
      async (request) => {
        const workspaceNamed = request.headers['x-workspace-id'] !== undefined;
        await confirmActivation(ctx, callerOf(request), request.body.code, { workspaceNamed });
        return { success: true as const };
      },
    );

    app.post(
      '/activate/deny',
      { config: { auth: 'session' }, schema: { body: CodeBody, response: { 200: Success } } },
      async (request) => {
        await denyActivation(ctx, callerOf(request), request.body.code);
        return { success: true as const };
      },
    );
  };
}

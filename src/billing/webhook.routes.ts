import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { InvalidInput } from '../errors.js';
import { limitWebhook } from '../identity/request-limits.js';
import { handlePaymentEvent } from './webhook.js';
import { verifiedEvent } from './webhook-signature.js';

/**
 * The payment webhook. Signatures are computed over the exact bytes sent, so in this
 * plugin every body is kept as the raw string instead of being parsed.
 *
 * The signature is checked before anything is counted: a forged delivery costs one HMAC
 * and spends no allowance. A genuine one is then counted in the webhook's own window per
 * client address (RATE_LIMIT_WEBHOOK_PER_MINUTE), never in the anonymous REST window, so a
 * provider delivering from a few addresses is not refused with the browsers behind them.
 */
export function webhookRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

    app.post(
      '/billing/webhook',
      { config: { auth: 'public', rateLimit: 'webhook' }, schema: { hide: true } },
      async (request, reply) => {
        if (typeof request.body !== 'string') throw new InvalidInput('The webhook needs a body');
        const signature = request.headers['stripe-signature'];
        const event = verifiedEvent(
          ctx.payments.webhookSecret,
          request.body,
          Array.isArray(signature) ? signature[0] : signature,
          ctx.clock.nowMs(),
        );
        await limitWebhook(ctx, request, reply);
        return { received: true, outcome: await handlePaymentEvent(ctx, event) };
      },
    );
  };
}

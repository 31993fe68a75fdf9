import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.js';
import { InvalidInput } from '../errors.js';
import { verifiedEvent } from './payment-provider.js';
import { handlePaymentEvent } from './webhook.js';

/**
 * The payment webhook. Signatures are computed over the exact bytes sent, so in this
 * plugin every body is kept as the raw string instead of being parsed.
 */
export function webhookRoutes(ctx: AppContext): FastifyPluginAsync {
  return async (app) => {
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));

    app.post('/billing/webhook', { config: { auth: 'public' }, schema: { hide: true } }, async (request) => {
      if (typeof request.body !== 'string') throw new InvalidInput('The webhook needs a body');
      const signature = request.headers['stripe-signature'];
      const event = verifiedEvent(
        ctx.payments,
        request.body,
        Array.isArray(signature) ? signature[0] : signature,
        ctx.clock.now().getTime(),
      );
      return { received: true, outcome: await handlePaymentEvent(ctx, event) };
    });
  };
}

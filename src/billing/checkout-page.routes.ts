import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { html, pageLayout } from '../http/html.js';
import { pageHeaders } from '../http/pages.js';
import { SessionParams } from './checkout-page.schemas.js';
import { cancelLocalCheckout, findLocalCheckout, type LocalCheckout, payLocalCheckout } from './local-checkout.js';

/** form-action covers the redirect a form's answer makes, so it names every return URL scheme. */
const checkoutHeaders = (appScheme: string) => pageHeaders({ styles: "'self'", formAction: `'self' http: https: ${appScheme}:` });

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function page(session: LocalCheckout): string {
  const what = session.kind === 'pack' ? `${session.credits} Ds (${session.pack_id})` : `Based: ${session.credits} Ds a month`;
  const actions =
    session.status === 'open'
      ? html`<div class="actions"><form method="post" action="/billing/checkout/${session.id}/pay"><button class="primary">Pay ${dollars(session.price_cents)}</button></form>
<form method="post" action="/billing/checkout/${session.id}/cancel"><button class="secondary">Cancel</button></form></div>`
      : html`<p>This checkout is ${session.status === 'paid' ? 'paid' : 'cancelled'}. <a href="/app/billing">Back to Billing</a></p>`;
  return pageLayout(
    'Test checkout',
    html`<p class="test-mode" role="alert">Test mode: no money moves, and Pay grants the credits for nothing.</p>
<h1>Test checkout</h1>
<p><strong>${what}</strong> for ${dollars(session.price_cents)}, receipt to ${session.email}.</p>
${actions}`,
  );
}

/**
 * The local test-mode checkout (no Stripe key configured): a page with Pay and Cancel. Pay
 * hands a signed event to the webhook's own handler, as Stripe's delivery would reach it,
 * then returns the person to the successUrl; only that handler grants credits.
 */
export function checkoutPageRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const publicRoute = { config: { auth: 'public' as const }, schema: { hide: true, params: SessionParams } };

    const headers = checkoutHeaders(ctx.config.billing.appScheme);
    const sendPage = (reply: FastifyReply, session: LocalCheckout) =>
      reply.headers(headers).type('text/html; charset=utf-8').send(page(session));

    app.get('/billing/checkout/:sessionId', publicRoute, async (request, reply) =>
      sendPage(reply, await findLocalCheckout(ctx, request.params.sessionId)),
    );

    app.post('/billing/checkout/:sessionId/pay', publicRoute, async (request, reply) => {
      const session = await findLocalCheckout(ctx, request.params.sessionId);
      if (session.status === 'canceled') return sendPage(reply, session);
      if (session.status === 'open') await payLocalCheckout(ctx, session);
      return reply.redirect(session.success_url, 303);
    });

    app.post('/billing/checkout/:sessionId/cancel', publicRoute, async (request, reply) => {
      const session = await findLocalCheckout(ctx, request.params.sessionId);
      await cancelLocalCheckout(ctx, session);
      return reply.redirect(session.cancel_url, 303);
    });
  };
}

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../context.js';
import { html } from '../http/html.js';
import { pageHeaders } from '../http/pages.js';
import { SessionParams } from './checkout-page.schemas.js';
import { cancelLocalCheckout, findLocalCheckout, type LocalCheckout, payLocalCheckout } from './local-checkout.js';

/** form-action covers the redirect a form's answer makes, so it names every return URL scheme. */
const checkoutHeaders = (appScheme: string) =>
  pageHeaders({ styles: "'unsafe-inline'", formAction: `'self' http: https: ${appScheme}:` });

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function page(session: LocalCheckout) {
  const what =
    session.kind === 'pack' ? `${session.credits} Ds (${session.pack_id})` : `basedmode, ${session.credits} Ds a month`;
  const actions =
    session.status === 'open'
      ? html`<form method="post" action="/billing/checkout/${session.id}/pay"><button>Pay ${dollars(session.price_cents)}</button></form>
<form method="post" action="/billing/checkout/${session.id}/cancel"><button>Cancel</button></form>`
      : html`<p>This checkout is ${session.status}.</p>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Skillet test checkout</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}form{display:inline-block;margin-right:.5rem}
.banner{background:#ffd400;color:#000;border:3px solid #000;padding:.75rem 1rem;font-weight:700;text-align:center}</style></head>
<body><p class="banner" role="alert">TEST MODE: no money moves, and Pay grants the credits for nothing.</p>
<h1>Test checkout</h1>
<p><strong>${what}</strong> for ${dollars(session.price_cents)}, receipt to ${session.email}.</p>
${actions}</body></html>`;
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
      reply.headers(headers).type('text/html; charset=utf-8').send(page(session).value);

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

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import Stripe from 'stripe';
import { Type } from 'typebox';
import type { AppContext } from '../context.js';
import { NotFound } from '../errors.js';
import { html } from '../http/html.js';
import { randomBase64Url } from '../secrets.js';
import { type CheckoutSessionRow, findCheckoutSession, markCanceled } from './checkout-sessions.store.js';
import { handlePaymentEvent } from './webhook.js';
import { verifiedEvent } from './webhook-signature.js';

const SessionParams = Type.Object({ sessionId: Type.String({ maxLength: 100 }) });

/** form-action covers the redirect a form's answer makes, so it names every return URL scheme. */
const pageHeaders = (appScheme: string) => ({
  'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' http: https: ${appScheme}:; frame-ancestors 'none'`,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
});

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

function page(session: CheckoutSessionRow) {
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

/** The provider event a real checkout would send when paid, as the local checkout sends it. */
function paidEvent(session: CheckoutSessionRow, nowSeconds: number) {
  const subscription = session.kind === 'subscription';
  return {
    id: `evt_local_${randomBase64Url(18)}`,
    object: 'event',
    type: 'checkout.session.completed',
    created: nowSeconds,
    livemode: false,
    data: {
      object: {
        id: session.id,
        object: 'checkout.session',
        mode: subscription ? 'subscription' : 'payment',
        payment_status: 'paid',
        amount_total: session.price_cents,
        payment_intent: subscription ? null : `pi_local_${randomBase64Url(18)}`,
        subscription: subscription ? `sub_local_${randomBase64Url(18)}` : null,
      },
    },
  };
}

/**
 * The local test-mode checkout (no Stripe key configured): a page with Pay and Cancel. Pay
 * hands a signed event to the webhook's own handler, as Stripe's delivery would reach it,
 * then returns the person to the successUrl; only that handler grants credits.
 */
export function checkoutPageRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    const publicRoute = { config: { auth: 'public' as const }, schema: { hide: true, params: SessionParams } };

    async function localSession(sessionId: string): Promise<CheckoutSessionRow> {
      const session = ctx.payments.name === 'local' ? await findCheckoutSession(ctx.db, sessionId) : undefined;
      if (session?.provider !== 'local') throw new NotFound('No such checkout');
      return session;
    }
    const headers = pageHeaders(ctx.config.billing.appScheme);
    const sendPage = (reply: FastifyReply, session: CheckoutSessionRow) =>
      reply.headers(headers).type('text/html; charset=utf-8').send(page(session).value);

    app.get('/billing/checkout/:sessionId', publicRoute, async (request, reply) =>
      sendPage(reply, await localSession(request.params.sessionId)),
    );

    app.post('/billing/checkout/:sessionId/pay', publicRoute, async (request, reply) => {
      const session = await localSession(request.params.sessionId);
      if (session.status === 'canceled') return sendPage(reply, session);
      if (session.status === 'open') {
        // Handed over in-process, not posted over HTTP: the server's own delivery spends
        // nobody's allowance (not the REST window of the buyer's address, not the webhook's).
        // It is still signed and verified as a provider's is, and handled by the same function.
        const nowMs = ctx.clock.now().getTime();
        const timestamp = Math.floor(nowMs / 1000);
        const payload = JSON.stringify(paidEvent(session, timestamp));
        const secret = ctx.payments.webhookSecret;
        const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
        await handlePaymentEvent(ctx, verifiedEvent(secret, payload, signature, nowMs));
      }
      return reply.redirect(session.success_url, 303);
    });

    app.post('/billing/checkout/:sessionId/cancel', publicRoute, async (request, reply) => {
      const session = await localSession(request.params.sessionId);
      await markCanceled(ctx.db, session.id);
      return reply.redirect(session.cancel_url, 303);
    });
  };
}

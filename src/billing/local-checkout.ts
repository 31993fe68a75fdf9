import Stripe from 'stripe';
import type { AppContext } from '../context.js';
import { NotFound } from '../errors.js';
import { randomBase64Url } from '../secrets.js';
import { type CheckoutSessionRow, findCheckoutSession, markCanceled } from './checkout-sessions.store.js';
import { handlePaymentEvent } from './webhook.js';
import { verifiedEvent } from './webhook-signature.js';

/** A checkout of the local test-mode provider, as its page shows it. */
export type LocalCheckout = CheckoutSessionRow;

/** The local provider's checkout by its id; any other provider's, or any when payments are not local, is not found. */
export async function findLocalCheckout(ctx: Pick<AppContext, 'db' | 'payments'>, sessionId: string): Promise<LocalCheckout> {
  const session = ctx.payments.name === 'local' ? await findCheckoutSession(ctx.db, sessionId) : undefined;
  if (session?.provider !== 'local') throw new NotFound('No such checkout');
  return session;
}

/** The provider event a real checkout would send when paid, as the local checkout sends it. */
function paidEvent(session: LocalCheckout, nowSeconds: number) {
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
 * Pays an open local checkout. The event is handed over in-process, not posted over HTTP:
 * the server's own delivery spends nobody's allowance (not the REST window of the buyer's
 * address, not the webhook's). It is still signed and verified as a provider's is, and
 * handled by the same function, which alone grants credits.
 */
export async function payLocalCheckout(
  ctx: Pick<AppContext, 'db' | 'clock' | 'credentials' | 'payments' | 'control' | 'webhooks'>,
  session: LocalCheckout,
): Promise<void> {
  const nowMs = ctx.clock.nowMs();
  const timestamp = Math.floor(nowMs / 1000);
  const payload = JSON.stringify(paidEvent(session, timestamp));
  const secret = ctx.payments.webhookSecret;
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
  await handlePaymentEvent(ctx, verifiedEvent(secret, payload, signature, nowMs));
}

export async function cancelLocalCheckout(ctx: Pick<AppContext, 'db'>, session: LocalCheckout): Promise<void> {
  await markCanceled(ctx.db, session.id);
}

import type { AppContext } from '../context.js';
import { AppError, Conflict, ServiceUnavailable } from '../errors.js';
import { invalidateForUser } from '../identity/user-invalidation.js';
import { renewingSubscriptions, setSubscriptionCancelled } from './checkout-sessions.store.js';
import type { Payer } from './payer.js';
import { subscriptionExpiry } from './standing.store.js';

/** A person's Based subscription: whether it is on, whether it renews, and until when it is paid. */
export interface SubscriptionStatus {
  subscribed: boolean;
  renews: boolean;
  paidUntil: string | null;
}

type Reads = Pick<AppContext, 'db' | 'clock'>;

export async function subscriptionStatus(ctx: Reads, caller: Payer): Promise<SubscriptionStatus> {
  const paidUntil = await subscriptionExpiry(ctx.db, caller.userId);
  const subscribed = paidUntil !== null && Date.parse(paidUntil) > ctx.clock.nowMs();
  const renews = subscribed && (await renewingSubscriptions(ctx.db, caller.userId)).length > 0;
  return { subscribed, renews, paidUntil: subscribed ? paidUntil : null };
}

/**
 * Stops the person's subscription from renewing. What they paid for runs to its end, so
 * they stay on Based until then; the provider is told first, and only what it accepted is
 * marked cancelled here. A subscription another provider started (the operator changed
 * providers since) is only marked: this server cannot reach it, and it bills here no more.
 */
export async function cancelSubscription(
  ctx: Reads & Pick<AppContext, 'payments' | 'control' | 'log'>,
  caller: Payer,
): Promise<SubscriptionStatus> {
  const renewing = await renewingSubscriptions(ctx.db, caller.userId);
  if (renewing.length === 0) {
    throw new Conflict('You have no subscription that renews, so there is nothing to cancel.');
  }
  for (const row of renewing) {
    if (row.provider === ctx.payments.name && row.payment_reference !== null) {
      try {
        await ctx.payments.cancelSubscription(row.payment_reference);
      } catch (error) {
        if (error instanceof AppError) throw error;
        ctx.log.error({ err: error, subscription: row.payment_reference }, 'the payment provider refused a cancellation');
        throw new ServiceUnavailable(
          'The payment provider could not cancel your subscription just now, so it still renews. Try again in a minute.',
        );
      }
    }
    await setSubscriptionCancelled(ctx.db, row.id, ctx.clock.now().toISOString());
  }
  await invalidateForUser(ctx, caller.userId, ['subscription']);
  return subscriptionStatus(ctx, caller);
}

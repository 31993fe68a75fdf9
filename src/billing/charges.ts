import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { PaymentRequired } from '../errors.js';
import type { Caller } from '../identity/callers.js';
import { canExecute } from './billing.js';
import { chargeRun } from './ledger.js';
import { accountOf, standingOfRow } from './standing.js';
import { subscriptionModeOf } from './subscription-mode.js';

/** House rates for model calls made on the service's own key: Ds per thousand tokens. */
export const HOUSE_RATES = { inputPerThousand: 1, outputPerThousand: 4 };

/** What a run costs: its skill's price plus its model tokens at house rates, none on a BYOK key. */
export function runCost(price: number, tokens: { input: number; output: number }, byok: boolean): number {
  if (byok) return price;
  const model = (tokens.input * HOUSE_RATES.inputPerThousand + tokens.output * HOUSE_RATES.outputPerThousand) / 1000;
  return price + Math.ceil(model);
}

/** Refuses to start a priced run for someone who cannot pay for it (402 INSUFFICIENT_CREDITS). */
export async function requireCanExecute(ctx: AppContext, caller: Caller, minimumCost: number): Promise<void> {
  if (minimumCost <= 0 || caller.isAdmin) return;
  const { balance, standing } = await accountOf(ctx.db, caller.userId);
  if (!canExecute(balance, caller.isAdmin, subscriptionModeOf(standing, ctx.clock.now()))) {
    throw new PaymentRequired('Not enough credits to run this skill: buy a credit pack first');
  }
}

/** Who pays for an execution's run and how much: admins and site-license holders pay nothing. */
export async function quoteRun(ctx: AppContext, executionId: string, cost: number): Promise<{ userId: string; amount: number }> {
  const payer = await ctx.db
    .selectFrom('executions as e')
    .innerJoin('users as u', 'u.id', 'e.user_id')
    .select(['u.id', 'u.is_admin', 'u.site_license_until', 'u.subscription_expires_at', 'u.byok_provider'])
    .where('e.execution_id', '=', executionId)
    .executeTakeFirstOrThrow();
  const mode = subscriptionModeOf(standingOfRow(payer), ctx.clock.now());
  const exempt = payer.is_admin === 1 || mode === 'sitelicense';
  return { userId: payer.id, amount: exempt ? 0 : cost };
}

/**
 * Debits a run's charge as a usage transaction with its execution id. False when the
 * balance cannot cover it (nothing is debited). A run is charged at most once.
 */
export async function chargeForRun(ctx: AppContext, executionId: string, quote: { userId: string; amount: number }) {
  if (quote.amount <= 0) return true;
  try {
    return await ctx.db.transaction().execute((trx) =>
      chargeRun(trx, {
        userId: quote.userId,
        amount: quote.amount,
        executionId,
        description: `Run ${executionId}: ${quote.amount} Ds`,
        nowIso: ctx.clock.now().toISOString(),
      }),
    );
  } catch (error) {
    if (isUniqueViolation(error)) return true;
    throw error;
  }
}

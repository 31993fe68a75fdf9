import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import { lockUserRow } from '../db/locks.js';
import type { Tables } from '../db/tables.js';
import { PaymentRequired } from '../errors.js';
import type { Caller } from '../identity/callers.js';
import { chargeRun, grant } from './ledger.js';
import { accountOf, standingOfRow } from './standing.js';
import { subscriptionModeOf } from './subscription-mode.js';

const INSUFFICIENT = 'Not enough credits to run this skill: buy a credit pack first';

/** House rates for model calls made on the service's own key: Ds per thousand tokens. */
export const HOUSE_RATES = { inputPerThousand: 1, outputPerThousand: 4 };

/** What a run costs: its skill's price plus its model tokens at house rates, none on a BYOK key. */
export function runCost(price: number, tokens: { input: number; output: number }, byok: boolean): number {
  if (byok) return price;
  const model = (tokens.input * HOUSE_RATES.inputPerThousand + tokens.output * HOUSE_RATES.outputPerThousand) / 1000;
  return price + Math.ceil(model);
}

/**
 * Refuses a priced run for someone whose balance cannot cover its price (402
 * INSUFFICIENT_CREDITS). A skill's price is paid in credits whatever the mode: a BYOK key
 * only makes model tokens free. Admins and site-license holders are not charged.
 */
export async function requireCanExecute(ctx: AppContext, caller: Caller, minimumCost: number): Promise<void> {
  if (minimumCost <= 0 || caller.isAdmin) return;
  const { balance, standing } = await accountOf(ctx.db, caller.userId);
  if (subscriptionModeOf(standing, ctx.clock.now()) === 'sitelicense') return;
  if (balance < minimumCost) throw new PaymentRequired(INSUFFICIENT);
}

/** requireCanExecute for a run of an execution: one that already paid (a resume) is covered. */
export async function requireRunCovered(ctx: AppContext, caller: Caller, executionId: string, price: number): Promise<void> {
  if (price > 0 && (await heldCharge(ctx.db, executionId)) === 0) await requireCanExecute(ctx, caller, price);
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
 * Holds a run's price before the run starts, inside the transaction that claims it, so
 * nothing is delivered unpaid. An execution pays once: a run resumed after an interrupt
 * was paid for by its first run. False when the balance cannot cover it (nothing changes).
 */
export async function holdRunPrice(
  trx: Kysely<Tables>,
  quote: { userId: string; amount: number },
  executionId: string,
  nowIso: string,
): Promise<boolean> {
  if (quote.amount <= 0 || (await heldCharge(trx, executionId)) > 0) return true;
  return chargeRun(trx, {
    userId: quote.userId,
    amount: quote.amount,
    executionId,
    description: `Run ${executionId}: ${quote.amount} Ds`,
    nowIso,
  });
}

/** The credits an execution's runs were charged (0 when none). */
export async function heldCharge(db: Kysely<Tables>, executionId: string): Promise<number> {
  const row = await db.selectFrom('transactions').select('amount').where('execution_id', '=', executionId).executeTakeFirst();
  return row ? -row.amount : 0;
}

/**
 * Gives back what an execution was charged when the service, not the skill, failed its run
 * (the server stopped, the sandbox could not start it, its files could not be stored).
 * Written once: a second call finds the refund already there.
 */
export async function refundRun(ctx: AppContext, executionId: string): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    const charge = await trx
      .selectFrom('transactions')
      .select(['user_id', 'amount'])
      .where('execution_id', '=', executionId)
      .executeTakeFirst();
    if (!charge || charge.amount >= 0) return 0;
    await lockUserRow(trx, ctx.dialect, charge.user_id);
    const description = `Refund of run ${executionId}: the service failed it`;
    const done = await trx
      .selectFrom('transactions')
      .select('id')
      .where('user_id', '=', charge.user_id)
      .where('description', '=', description)
      .executeTakeFirst();
    if (done) return 0;
    const amount = -charge.amount;
    await grant(trx, {
      userId: charge.user_id,
      amount,
      description,
      paymentSessionId: null,
      nowIso: ctx.clock.now().toISOString(),
    });
    return amount;
  });
}

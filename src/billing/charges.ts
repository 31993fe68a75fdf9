import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import { lockRow } from '../db/locks.js';
import type { Tables } from '../db/tables.js';
import { PaymentRequired } from '../errors.js';
import { chargeOfExecution, chargeRun, grant, hasEntry } from './ledger.store.js';
import type { Payer } from './payer.js';
import { accountOf, payerOfExecution } from './standing.store.js';
import { subscriptionModeOf } from './subscription-mode.js';

type Deps = Pick<AppContext, 'db' | 'clock'>;

const INSUFFICIENT = 'Not enough credits to run this skill: buy a credit pack first';

/** House rates for model calls made on the service's own key: Ds per thousand tokens. */
const HOUSE_RATES = { inputPerThousand: 1, outputPerThousand: 4 };

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
export async function requireCanExecute(ctx: Deps, caller: Payer, minimumCost: number): Promise<void> {
  if (minimumCost <= 0 || caller.isAdmin) return;
  const { balance, standing } = await accountOf(ctx.db, caller.userId);
  if (subscriptionModeOf(standing, ctx.clock.now()) === 'sitelicense') return;
  if (balance < minimumCost) throw new PaymentRequired(INSUFFICIENT);
}

/** requireCanExecute for a run of an execution: one that already paid (a resume) is covered. */
export async function requireRunCovered(ctx: Deps, caller: Payer, executionId: string, price: number): Promise<void> {
  if (price > 0 && (await heldCharge(ctx.db, executionId)) === 0) await requireCanExecute(ctx, caller, price);
}

/** Who pays for an execution's run and how much: admins and site-license holders pay nothing. */
export async function quoteRun(ctx: Deps, executionId: string, cost: number): Promise<{ userId: string; amount: number }> {
  const payer = await payerOfExecution(ctx.db, executionId);
  const exempt = payer.isAdmin || subscriptionModeOf(payer.standing, ctx.clock.now()) === 'sitelicense';
  return { userId: payer.userId, amount: exempt ? 0 : cost };
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
  const charge = await chargeOfExecution(db, executionId);
  return charge ? -charge.amount : 0;
}

/**
 * Gives back what an execution was charged when the service, not the skill, failed its run
 * (the server stopped, the sandbox could not start it, its files could not be stored).
 * Written once: a second call finds the refund already there.
 */
export async function refundRun(ctx: Deps, executionId: string): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    const charge = await chargeOfExecution(trx, executionId);
    if (!charge || charge.amount >= 0) return 0;
    await lockRow(trx, 'users', charge.user_id);
    const description = `Refund of run ${executionId}: the service failed it`;
    if (await hasEntry(trx, charge.user_id, description)) return 0;
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

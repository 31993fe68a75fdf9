import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import { retryOnConnectionLoss } from '../db/connection-loss.js';
import { inGroupedSteps, inGroupedTransaction } from '../db/group-commit.js';
import { lockRow } from '../db/locks.js';
import { runSteps, type Steps } from '../db/statement-steps.js';
import type { Tables } from '../db/tables.js';
import { PaymentRequired } from '../errors.js';
import { subscriptionModeOf } from '../identity/subscription-mode.js';
import { chargedFor, chargeModelCall, chargeRun, chargeUsageUpTo, hasEntry, refundToExecution } from '../ledger/ledger.store.js';
import type { BillingStanding } from '../ports/callers.js';
import { lowerHeld, spendableOf, takeOutHold } from './credit-holds.store.js';
import type { Payer } from './payer.js';
import { accountOf, payerOfExecution } from './standing.store.js';

type Deps = Pick<AppContext, 'db' | 'clock'>;

const INSUFFICIENT = 'Not enough credits to run this skill: buy a credit pack first';

/** No hold: a skill without a model, or one whose calls the payer's own key pays for. */
const NO_MODEL_CALL = async () => 0;

/**
 * Why starting a run would be refused for credits, in words; undefined when it would not.
 * A start needs free credits (the balance less what is held for model calls under way) for
 * its price, which the start holds, and then for the hold of its first model call on the
 * house key (`firstCallHold`, asked only of a payer who is charged), without which the run
 * would stop at once with `limit_reached`. A skill's price is paid in credits whatever the
 * mode: a BYOK key only makes model tokens free. Admins and site-license holders are not charged.
 */
export async function creditShortfall(
  ctx: Deps,
  caller: Payer,
  price: number,
  firstCallHold: () => Promise<number> = NO_MODEL_CALL,
): Promise<string | undefined> {
  if (caller.isAdmin) return undefined;
  const { balance, held, standing } = await accountOf(ctx.db, caller.userId);
  if (subscriptionModeOf(standing, ctx.clock.nowMs()) === 'sitelicense') return undefined;
  const hold = await firstCallHold();
  const needed = Math.max(0, price) + hold;
  if (needed <= 0 || balance - held >= needed) return undefined;
  if (balance >= needed) {
    return (
      `Not enough free credits to run this skill: ${held} Ds are held for your runs and replies under way. ` +
      'Wait for them to finish, or buy a credit pack'
    );
  }
  if (hold === 0) return INSUFFICIENT;
  const onTop = price > 0 ? ` on top of its price of ${price} Ds` : '';
  return (
    `Not enough credits to run this skill: its first model call needs up to ${hold} Ds${onTop}, and you have ` +
    `${Math.max(0, balance - held)} Ds free. Buy a credit pack, or add your own model key under Billing to pay for the model yourself`
  );
}

/** Refuses, with 402 INSUFFICIENT_CREDITS, a start that `creditShortfall` finds short. */
export async function requireCanExecute(
  ctx: Deps,
  caller: Payer,
  price: number,
  firstCallHold?: () => Promise<number>,
): Promise<void> {
  const shortfall = await creditShortfall(ctx, caller, price, firstCallHold);
  if (shortfall !== undefined) throw new PaymentRequired(shortfall);
}

/** Who pays for an execution's run and how much: admins and site-license holders pay nothing. */
export async function quoteRun(ctx: Deps, executionId: string, cost: number): Promise<{ userId: string; amount: number }> {
  const payer = await payerOfExecution(ctx.db, executionId);
  const exempt = isExempt(payer, ctx.clock.nowMs());
  return { userId: payer.userId, amount: exempt ? 0 : cost };
}

/**
 * Holds a run's price before the run starts, inside the transaction that claims it, so
 * nothing is delivered unpaid. Every run pays, the first of an execution and each one a
 * later user.message starts after an interrupt alike: one price must not buy any number
 * of runs. False when the balance cannot cover it (nothing changes).
 */
export async function holdRunPrice(
  trx: Kysely<Tables>,
  quote: { userId: string; amount: number },
  executionId: string,
  nowIso: string,
): Promise<boolean> {
  if (quote.amount <= 0) return true;
  return chargeRun(trx, {
    userId: quote.userId,
    amount: quote.amount,
    executionId,
    description: `Run ${executionId}: ${quote.amount} Ds`,
    nowIso,
  });
}

/** What an execution cost in all: its price and its model calls. */
export function executionCost(db: Kysely<Tables>, executionId: string): Promise<number> {
  return chargedFor(db, executionId);
}

/** Admins and site-license holders run without being charged. */
export function isExempt(payer: { isAdmin: boolean; standing: BillingStanding }, nowMs: number): boolean {
  return payer.isAdmin || subscriptionModeOf(payer.standing, nowMs) === 'sitelicense';
}

/** What a user can still spend, in Ds: the balance less what is held for model calls under way. */
export function spendableBy(ctx: Deps, userId: string): Promise<number> {
  return spendableOf(ctx.db, userId);
}

/**
 * Takes a model call's hold out inside its charge's transaction; returns what the payer's
 * `held` must come down by, which the charge's own update of the payer's row then does.
 */
function* takeOutCallHold(db: Kysely<Tables>, userId: string, holdId: string | undefined): Steps<number> {
  if (holdId === undefined) return 0;
  const hold = yield* takeOutHold(db, holdId);
  if (!hold) return 0;
  if (hold.userId === userId) return hold.amount;
  // A call's hold is always its payer's; should it not be, it is still given back.
  yield* lowerHeld(db, hold);
  return 0;
}

/**
 * Settles a model call: its hold taken out, then up to `due` Ds charged by `charge`, never
 * below a zero balance. Returns the Ds that could not be taken.
 */
function* settleModelCall(
  db: Kysely<Tables>,
  call: { userId: string; due: number; holdId: string | undefined },
  charge: (releasing: number) => Steps<number>,
): Steps<number> {
  const { userId, due, holdId } = call;
  const releasing = yield* takeOutCallHold(db, userId, holdId);
  if (due <= 0) {
    if (releasing > 0) yield* lowerHeld(db, { userId, amount: releasing });
    return 0;
  }
  return due - (yield* charge(releasing));
}

/**
 * Charges the next model call of an execution `due` Ds to its payer, never below a zero
 * balance, and lets the call's hold go in the same transaction, with `alsoIn` (the call's
 * journal step) when given. The ledger numbers the call after the execution's earlier ones,
 * so a run resumed after an interrupt goes on counting. Returns the Ds that could not be taken.
 */
export async function chargeModelTokens(
  ctx: Deps,
  userId: string,
  executionId: string,
  due: number,
  options: { holdId?: string; alsoIn?: (trx: Kysely<Tables>) => Promise<void> } = {},
): Promise<number> {
  const { holdId, alsoIn } = options;
  if (due <= 0 && holdId === undefined && !alsoIn) return 0;
  const nowIso = ctx.clock.now().toISOString();
  const settle = (db: Kysely<Tables>) =>
    settleModelCall(db, { userId, due, holdId }, (releasing) =>
      chargeModelCall(db, {
        userId,
        due,
        releasing,
        executionId,
        description: `Run ${executionId}, model call: ${due} Ds`,
        nowIso,
      }),
    );
  // Beside the answer's events, which are stored in the same turn (db/group-commit.ts).
  if (!alsoIn) return inGroupedSteps(ctx.db, settle);
  return inGroupedTransaction(ctx.db, async (trx) => {
    await alsoIn(trx);
    return runSteps(trx, settle(trx));
  });
}

/**
 * Charges a model call of an agent thread's turn `due` Ds to the turn's payer, never below
 * a zero balance, and lets the call's hold go in the same transaction. A thread is no
 * execution: the row names the thread in its description (the agent and the client's
 * thread id, then the row id) and has no execution id. Returns the Ds that could not be taken.
 */
export async function chargeThreadModelTokens(
  ctx: Deps,
  userId: string,
  threadRowId: string,
  due: number,
  /** How the person knows the thread ("assistant/<threadId>"), shown beside its row id. */
  label?: string,
  holdId?: string,
): Promise<number> {
  if (due <= 0 && holdId === undefined) return 0;
  const named = label === undefined ? threadRowId : `${label} (${threadRowId})`;
  const nowIso = ctx.clock.now().toISOString();
  const description = `Agent thread ${named}, model call: ${due} Ds`;
  return ctx.db.transaction().execute((trx) =>
    runSteps(
      trx,
      settleModelCall(trx, { userId, due, holdId }, (releasing) =>
        chargeUsageUpTo(trx, { userId, due, releasing, description, nowIso }),
      ),
    ),
  );
}

/**
 * Gives back what an execution's last run was charged (its price and any model calls) when
 * the service, not the skill, failed it (the server stopped, the sandbox could not start
 * it, its files could not be stored, a house model key was refused), or when the payer's
 * own model key was refused before the run did any work. `earlier` is what the execution's
 * earlier runs cost (each was interrupted and keeps its charge); `why` ends the ledger
 * entry's description. Such a run ends the execution, so it is refunded once: a second
 * call finds the refund there.
 */
export function refundRun(ctx: Deps, executionId: string, run: { earlier: number; why: string }): Promise<number> {
  // Safe to repeat after a lost connection: the refund is looked for before it is written.
  return retryOnConnectionLoss(() => refundOnce(ctx, executionId, run));
}

function refundOnce(ctx: Deps, executionId: string, run: { earlier: number; why: string }): Promise<number> {
  return ctx.db.transaction().execute(async (trx) => {
    const amount = (await chargedFor(trx, executionId)) - run.earlier;
    if (amount <= 0) return 0;
    const { userId } = await payerOfExecution(trx, executionId);
    await lockRow(trx, 'users', userId);
    const description = `Refund of run ${executionId}: ${run.why}`;
    if (await hasEntry(trx, userId, description)) return 0;
    await refundToExecution(trx, { userId, amount, description, executionId, nowIso: ctx.clock.now().toISOString() });
    return amount;
  });
}

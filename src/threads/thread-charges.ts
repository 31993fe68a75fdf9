import { ownModelKey } from '../billing/byok.js';
import { chargeThreadModelTokens, isExempt, spendableBy } from '../billing/charges.js';
import { holdCredits, releaseCredits } from '../billing/model-holds.js';
import type { AppContext } from '../context.js';
import type { Caller } from '../ports/callers.js';
import type { ThreadRef } from '../ports/thread-records.js';
import type { RunAccount } from '../runtime/runtime.js';

/**
 * The account a thread's turn is paid from, in the shape the skill runtimes use for a run
 * (RunAccount), so the loop's credit rules read the same: the payer is the person whose
 * message started the turn; admins and site-license holders are not charged; each model
 * call holds credits before it starts; charges are ledger rows naming the thread, with no
 * execution.
 */
export function threadAccount(
  ctx: Pick<AppContext, 'db' | 'clock' | 'keys' | 'config'>,
  thread: ThreadRef,
  payer: Caller,
): RunAccount {
  const label = `${thread.agentId}/${thread.threadId}`;
  return {
    ownModelKey: () => ownModelKey(ctx, thread.userId),
    isCharged: async () => !isExempt({ isAdmin: payer.isAdmin, standing: payer.billing }, ctx.clock.nowMs()),
    spendable: () => spendableBy(ctx, thread.userId),
    hold: (amount: number) => holdCredits(ctx, thread.userId, `turn ${thread.id}`, amount),
    release: (holdId: string) => releaseCredits(ctx, holdId),
    charge: (due: number, holdId?: string) => chargeThreadModelTokens(ctx, thread.userId, thread.id, due, label, holdId),
  };
}

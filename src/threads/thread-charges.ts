import { ownModelKey } from '../billing/byok.js';
import { chargeThreadModelTokens, isExempt, spendableBy } from '../billing/charges.js';
import type { AppContext } from '../context.js';
import type { Caller } from '../identity/callers.js';
import type { RunAccount } from '../skills/runtime.js';
import type { ThreadRef } from './thread-records.js';

/**
 * The account a thread's turn is paid from, in the shape the skill runtimes use for a run
 * (RunAccount), so the loop's credit rules read the same: the payer is the person whose
 * message started the turn; admins and site-license holders are not charged; charges are
 * ledger rows naming the thread, with no execution.
 */
export function threadAccount(ctx: Pick<AppContext, 'db' | 'clock' | 'keys'>, thread: ThreadRef, payer: Caller): RunAccount {
  const label = `${thread.agentId}/${thread.threadId}`;
  return {
    ownModelKey: () => ownModelKey(ctx, thread.userId),
    isCharged: async () => !isExempt({ isAdmin: payer.isAdmin, standing: payer.billing }, ctx.clock.now()),
    spendable: () => spendableBy(ctx, thread.userId),
    charge: (due: number) => chargeThreadModelTokens(ctx, thread.userId, thread.id, due, label),
  };
}

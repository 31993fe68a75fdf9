import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import type { Tables } from '../db/tables.js';
import type { ModelProvider } from '../language-models.js';
import type { JournalStep } from '../runtime/journal-steps.js';
import { ownModelKey } from './byok.js';
import { chargeModelTokens, isExempt, spendableBy } from './charges.js';
import { holdCredits, releaseCredits, runHoldOwner } from './model-holds.js';
import { payerOfExecution } from './standing.store.js';

/** Writes a journal step inside a transaction of the caller's. */
export type JournalWriter = (trx: Kysely<Tables>, step: JournalStep) => Promise<void>;

/** Who pays for an execution's run, read from the database the first time it is asked for. */
export type RunPayer = () => ReturnType<typeof payerOfExecution>;

/** The payer of an execution never changes, so a run looks it up once, and only if it needs it. */
export function runPayer(db: Kysely<Tables>, executionId: string): RunPayer {
  let payer: ReturnType<typeof payerOfExecution> | undefined;
  return () => {
    payer ??= payerOfExecution(db, executionId);
    return payer;
  };
}

/**
 * The account one execution's run is paid from, as a runtime sees it: the payer's own model
 * key, whether they pay at all, what they can spend, holding credits for a model call and
 * charging it.
 */
export function runAccount(
  ctx: Pick<AppContext, 'db' | 'clock' | 'keys' | 'config'>,
  executionId: string,
  payerOnce: RunPayer,
  /** Journals a model call's answer inside its charge's transaction (a run another worker may resume). */
  journal?: JournalWriter,
) {
  return {
    async ownModelKey(): Promise<{ provider: ModelProvider; key: string } | undefined> {
      return ownModelKey(ctx, (await payerOnce()).userId);
    },
    isCharged: async () => !isExempt(await payerOnce(), ctx.clock.nowMs()),
    spendable: async () => spendableBy(ctx, (await payerOnce()).userId),
    hold: async (amount: number) => holdCredits(ctx, (await payerOnce()).userId, runHoldOwner(executionId), amount),
    release: (holdId: string) => releaseCredits(ctx, holdId),
    charge: async (due: number, holdId?: string, step?: JournalStep) =>
      chargeModelTokens(ctx, (await payerOnce()).userId, executionId, due, {
        ...(holdId === undefined ? {} : { holdId }),
        ...(journal && step ? { alsoIn: (trx: Kysely<Tables>) => journal(trx, step) } : {}),
      }),
  };
}

import type { AppContext } from '../context.js';
import type { ActivationStatus } from '../db/tables.js';
import { type ActivationState, compareAndSet, findOverdue } from './activation.store.js';

export const ACTIVATION_TTL_SECONDS = 600;

/** The state a code is in right now: a stored pending or approved code may have run out. */
export function currentStatus(row: Pick<ActivationState, 'status' | 'expires_at'>, now: Date): ActivationStatus {
  const live = row.status === 'pending' || row.status === 'approved';
  return live && Date.parse(row.expires_at) <= now.getTime() ? 'expired' : row.status;
}

/**
 * Moves an overdue code to expired. An approved code that was never claimed takes its
 * minted key with it: the sealed copy is wiped and the key revoked, so no key outlives
 * the claim window unseen.
 */
export async function expire(ctx: AppContext, row: ActivationState): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const won = await compareAndSet(trx, row, { status: 'expired', sealed_key: null });
    if (won && row.status === 'approved' && row.api_key_id) {
      await trx
        .updateTable('api_keys')
        .set({ revoked_at: ctx.clock.now().toISOString() })
        .where('id', '=', row.api_key_id)
        .where('revoked_at', 'is', null)
        .execute();
      ctx.credentials.forget(row.api_key_id);
    }
  });
}

/** Expires every overdue code; run periodically so unclaimed keys never linger. */
export async function sweepExpiredActivations(ctx: AppContext): Promise<number> {
  let total = 0;
  for (;;) {
    const overdue = await findOverdue(ctx.db, ctx.clock.now().toISOString(), 100);
    for (const row of overdue) await expire(ctx, row);
    total += overdue.length;
    if (overdue.length < 100) return total;
  }
}

import type { AppContext } from '../context.js';
import type { ActivationStatus } from '../db/tables-identity.js';
import { revokeUnclaimedKey } from '../identity/api-keys.js';
import { type ActivationState, compareAndSet, findOverdue } from './activation.store.js';

export const ACTIVATION_TTL_SECONDS = 600;

/** What expiring a code needs: the database, the time, and the cache its key may sit in. */
export type Expirer = Pick<AppContext, 'db' | 'clock' | 'credentials'>;

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
export async function expire(ctx: Expirer, row: ActivationState): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    const won = await compareAndSet(trx, row, { status: 'expired', sealed_key: null });
    if (won && row.status === 'approved' && row.api_key_id) await revokeUnclaimedKey(ctx, trx, row.api_key_id);
  });
}

/** Expires every overdue code; run periodically so unclaimed keys never linger. */
export async function sweepExpiredActivations(ctx: Expirer): Promise<number> {
  let total = 0;
  for (;;) {
    const overdue = await findOverdue(ctx.db, ctx.clock.now().toISOString(), 100);
    for (const row of overdue) await expire(ctx, row);
    total += overdue.length;
    if (overdue.length < 100) return total;
  }
}

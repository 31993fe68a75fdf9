import type { AppContext } from '../context.js';
import type { ActivationStatus } from '../db/tables-identity.js';
import { InternalError } from '../errors.js';
import { type SubscriptionMode, subscriptionModeOf } from '../identity/subscription-mode.js';
import { standingOf } from '../identity/users.store.js';
import { decrypt } from '../secrets.js';
import { type ActivationState, compareAndSet, findByDeviceCodeHash, findStateById, workspaceName } from './activation.store.js';
import { currentStatus, type Expirer, expire } from './lifecycle.js';

export type PollResult =
  | { status: Exclude<ActivationStatus, 'approved'> }
  | {
      status: 'approved';
      api_key: string;
      tier: SubscriptionMode;
      workspace: { id: string; name: string | null };
    };

async function settle(ctx: Expirer, row: ActivationState): Promise<Exclude<ActivationStatus, 'approved'> | 'claimable'> {
  const status = currentStatus(row, ctx.clock.now());
  if (status === 'expired' && row.status !== 'expired') await expire(ctx, row);
  return status === 'approved' ? 'claimable' : status;
}

/**
 * What a device learns when it polls. Never an error about state: an unknown code (or a
 * user code sent in place of the device code) reads as expired. The first poll after
 * approval claims the key through a compare-and-set, so exactly one poll ever sees it.
 */
export async function pollActivation(ctx: Expirer & Pick<AppContext, 'keys'>, deviceCodeHash: string): Promise<PollResult> {
  const row = await findByDeviceCodeHash(ctx.db, deviceCodeHash);
  if (!row) return { status: 'expired' };
  const state = await settle(ctx, row);
  if (state !== 'claimable') return { status: state };

  const won = await compareAndSet(ctx.db, row, {
    status: 'consumed',
    sealed_key: null,
    claimed_at: ctx.clock.now().toISOString(),
  });
  if (!won) {
    // Another poll claimed it a moment ago (or the clock ran out): report where it is now.
    const latest = await findStateById(ctx.db, row.id);
    const status = latest ? currentStatus(latest, ctx.clock.now()) : 'expired';
    return { status: status === 'approved' ? 'consumed' : status };
  }
  if (!row.sealed_key || !row.workspace_id || !row.decided_by) {
    throw new InternalError('An approved activation is missing its sealed key');
  }
  const workspace = await workspaceName(ctx.db, row.workspace_id);
  return {
    status: 'approved',
    api_key: decrypt(ctx.keys.sealing, row.sealed_key),
    tier: subscriptionModeOf(await standingOf(ctx.db, row.decided_by), ctx.clock.nowMs()),
    workspace: { id: row.workspace_id, name: workspace?.name ?? null },
  };
}

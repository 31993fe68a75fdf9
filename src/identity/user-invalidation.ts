import type { AppContext } from '../context.js';
import { invalidate } from '../realtime/control-messages.js';
import { listMemberships } from './workspaces.store.js';

/**
 * Tells every workspace a person belongs to that their own data changed (a balance, a
 * BYOK key): it is theirs wherever they are acting, and the control plane is per workspace.
 */
export async function invalidateForUser(
  ctx: Pick<AppContext, 'db' | 'control' | 'clock'>,
  userId: string,
  keys: string[],
): Promise<void> {
  for (const membership of await listMemberships(ctx.db, userId)) invalidate(ctx, membership.id, keys);
}

import type { AppContext } from '../context.js';
import { deleteExpiredRecords } from '../identity/oauth-records.store.js';

/**
 * Deletes what oidc-provider stored past its lifetime (codes, tokens, sessions,
 * interactions, grants). Expired rows are never read, so this only keeps the table small;
 * it runs on the activations' sweep interval.
 */
export function sweepExpiredOAuthRecords(ctx: Pick<AppContext, 'db' | 'clock'>): Promise<number> {
  return deleteExpiredRecords(ctx.db, ctx.clock.now().toISOString());
}

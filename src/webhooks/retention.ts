import type { AppContext } from '../context.js';
import { deleteSettledMessages } from './webhooks.store.js';

/** Forgets messages older than WEBHOOK_LOG_RETENTION_DAYS whose deliveries have all ended, with their logs. */
export function pruneWebhookLog(ctx: Pick<AppContext, 'db' | 'clock' | 'config'>): Promise<number> {
  const before = new Date(ctx.clock.nowMs() - ctx.config.webhooks.logRetentionMs);
  return deleteSettledMessages(ctx.db, before.toISOString());
}

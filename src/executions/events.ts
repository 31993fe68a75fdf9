import type { Updateable } from 'kysely';
import type { AppContext } from '../context.js';
import type { ExecutionsTable } from '../db/tables.js';
import type { ExecutionEvent, NewEvent, TextBlock } from './event-codec.js';
import { appendEvents, type StoredEvent } from './events.store.js';

/** Stores events (and any change to the execution that goes with them), then announces them. */
export async function recordEvents(
  ctx: Pick<AppContext, 'db' | 'clock' | 'bus'>,
  executionId: string,
  events: NewEvent[],
  change: Updateable<ExecutionsTable> = {},
): Promise<ExecutionEvent[]> {
  const nowIso = ctx.clock.now().toISOString();
  const stored = await ctx.db.transaction().execute((trx) => appendEvents(trx, executionId, events, nowIso, change));
  announce(ctx, executionId, stored);
  return stored.map(({ event }) => event);
}

/** Announces stored events to live subscribers; only ever after they are committed. */
export function announce(ctx: Pick<AppContext, 'bus'>, executionId: string, stored: StoredEvent[]): void {
  for (const { event, frame } of stored) ctx.bus.publish(executionId, { sequence: event.sequence, type: event.type, frame });
}

export function textContent(text: string): { content: TextBlock[] } {
  return { content: [{ type: 'text', text }] };
}

import type { Kysely, Updateable } from 'kysely';
import type { AppContext } from '../context.js';
import { retryOnConnectionLoss } from '../db/connection-loss.js';
import { inGroupedSteps, inGroupedTransaction } from '../db/group-commit.js';
import { runSteps } from '../db/statement-steps.js';
import type { Tables } from '../db/tables.js';
import type { ExecutionsTable } from '../db/tables-runs.js';
import type { ExecutionEvent, NewEvent, TextBlock } from './event-codec.js';
import { appendEvents, type StoredEvent } from './events.store.js';

/**
 * Stores events (and any change to the execution that goes with them), then announces them.
 * `alsoWithin` writes what must commit with them (a finished run's outbound webhooks).
 */
export async function recordEvents(
  ctx: Pick<AppContext, 'db' | 'clock' | 'bus'>,
  executionId: string,
  events: NewEvent[],
  change: Updateable<ExecutionsTable> = {},
  alsoWithin?: (trx: Kysely<Tables>) => Promise<void>,
): Promise<ExecutionEvent[]> {
  const nowIso = ctx.clock.now().toISOString();
  // A lost connection rolls the transaction back, events and counter together: write them again.
  const stored = await retryOnConnectionLoss(() =>
    alsoWithin
      ? inGroupedTransaction(ctx.db, async (trx) => {
          const appended = await runSteps(trx, appendEvents(trx, executionId, events, nowIso, change));
          await alsoWithin(trx);
          return appended;
        })
      : inGroupedSteps(ctx.db, (db) => appendEvents(db, executionId, events, nowIso, change)),
  );
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

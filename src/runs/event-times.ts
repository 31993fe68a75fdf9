import type { AppContext } from '../context.js';
import type { Caller } from '../ports/callers.js';
import { eventTimesAfter } from './events.store.js';
import { executionOf } from './executions.js';

/** Times per page: a long agent run has thousands of events, and a page stays small. */
export const EVENT_TIMES_PAGE = 1000;

export interface EventTimes {
  times: { sequence: number; at: string }[];
  hasMore: boolean;
}

/**
 * When each event of a run happened, for people reading the run afterwards. The stream's
 * frames carry no time (their shape is the spec's), so the app reads the times here once a
 * replay has arrived in one burst. Another workspace's execution is not found.
 */
export async function executionEventTimes(
  ctx: Pick<AppContext, 'db'>,
  caller: Caller,
  executionId: string,
  afterSequence: number,
): Promise<EventTimes> {
  await executionOf(ctx, caller, executionId);
  const rows = await eventTimesAfter(ctx.db, executionId, afterSequence, EVENT_TIMES_PAGE + 1);
  return {
    times: rows
      .slice(0, EVENT_TIMES_PAGE)
      .map((row) => ({ sequence: Number(row.sequence), at: new Date(row.created_at).toISOString() })),
    hasMore: rows.length > EVENT_TIMES_PAGE,
  };
}

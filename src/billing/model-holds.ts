import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import { retryOnConnectionLoss } from '../db/connection-loss.js';
import { inGroupedSteps } from '../db/group-commit.js';
import { runSteps } from '../db/statement-steps.js';
import { holdsOfNode, releaseHold, takeHold } from './credit-holds.store.js';

/** After this long no model call can still be waiting on its hold: every attempt timed out, with a minute to spare. */
function holdLifetimeMs(ctx: Pick<AppContext, 'config'>): number {
  const { timeoutMs, maxRetries } = ctx.config.agent;
  return timeoutMs * (maxRetries + 1) + 60_000;
}

/**
 * Holds `amount` Ds of the user's credits for a model call about to start (`owner` says
 * whose: "run <execution id>", "turn <thread row id>"). Returns the hold's id, or undefined
 * when the balance less everything already held cannot cover it (nothing is held then).
 */
export async function holdCredits(
  ctx: Pick<AppContext, 'db' | 'clock' | 'config'>,
  userId: string,
  owner: string,
  amount: number,
): Promise<string | undefined> {
  const now = ctx.clock.now();
  const id = randomUUID();
  const hold = {
    id,
    userId,
    amount,
    owner,
    nodeId: ctx.config.nodeId,
    nowIso: now.toISOString(),
    expiresIso: new Date(now.getTime() + holdLifetimeMs(ctx)).toISOString(),
  };
  const held = await inGroupedSteps(ctx.db, (db) => takeHold(db, hold));
  return held ? id : undefined;
}

/** Lets a hold go unused: its call failed, was stopped, or never started. */
export function releaseCredits(ctx: Pick<AppContext, 'db'>, holdId: string): Promise<void> {
  return retryOnConnectionLoss(() => ctx.db.transaction().execute((trx) => runSteps(trx, releaseHold(trx, holdId))));
}

/** At a node's start: the holds its calls took before it stopped are let go, as none of those calls goes on. */
export async function releaseHoldsOfNode(ctx: Pick<AppContext, 'db' | 'config'>): Promise<number> {
  const ids = await holdsOfNode(ctx.db, ctx.config.nodeId);
  for (const id of ids) await releaseCredits(ctx, id);
  return ids.length;
}

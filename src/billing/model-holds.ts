import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import { retryOnConnectionLoss } from '../db/connection-loss.js';
import { inGroupedSteps } from '../db/group-commit.js';
import { runSteps } from '../db/statement-steps.js';
import type { Tables } from '../db/tables.js';
import { holdsOfNode, holdsOfSilentNodes, holdsOwnedBy, releaseHold, takeHold } from './credit-holds.store.js';

/** Whose a run's holds are: every attempt at the run, on any node, holds under this name. */
export function runHoldOwner(executionId: string): string {
  return `run ${executionId}`;
}

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

/**
 * At a hand-on, inside its transaction: the holds of the run's lost attempts are let go.
 * The next attempt is queued only after this commits, so none of them is its own; a lost
 * attempt still alive (a node taken for silent) finds its hold gone and settles without it.
 */
export async function releaseRunHolds(trx: Kysely<Tables>, executionId: string): Promise<number> {
  const ids = await holdsOwnedBy(trx, runHoldOwner(executionId));
  for (const id of ids) await runSteps(trx, releaseHold(trx, id));
  return ids.length;
}

/** The cluster's sweep: the holds of nodes silent since `cutoffIso` are let go, as none of their calls goes on. */
export async function releaseHoldsOfSilentNodes(ctx: Pick<AppContext, 'db' | 'config'>, cutoffIso: string): Promise<number> {
  const ids = await holdsOfSilentNodes(ctx.db, ctx.config.nodeId, cutoffIso);
  for (const id of ids) await releaseCredits(ctx, id);
  return ids.length;
}

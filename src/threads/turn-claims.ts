import type { AppContext } from '../context.js';
import { TooManyAtOnce } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import type { ThreadRow } from './threads.store.js';
import { claimTurn, dropTurnClaim, endTurnClaims } from './turn-claims.store.js';

/** How long a claim counts before its turn holds the thread's lease: the lease's own length (thread-turns.ts). */
const CLAIM_FRESH_MS = 60_000;

/**
 * Before a person's message is stored: claims the turn that will answer it, so no one has
 * more than THREAD_TURNS_PER_USER turns asked for or running at once (each turn's model
 * calls hold credits; the cap keeps one person from holding the house's vendors too).
 * Refused with 429 and nothing stored. Returns whether a claim was made for this message
 * (false: the person already had one on this thread), so a message never stored can take
 * back its own claim and no other.
 */
export async function claimThreadTurn(ctx: AppContext, caller: Caller, thread: ThreadRow): Promise<boolean> {
  const now = ctx.clock.now();
  const limit = ctx.config.threads.turnsPerUser;
  const outcome = await ctx.db.transaction().execute((trx) =>
    claimTurn(trx, {
      threadId: thread.id,
      userId: caller.userId,
      limit,
      nowIso: now.toISOString(),
      freshSinceIso: new Date(now.getTime() - CLAIM_FRESH_MS).toISOString(),
    }),
  );
  if (outcome === 'full') {
    const replies = limit === 1 ? 'a reply' : `${limit} replies`;
    throw new TooManyAtOnce(`You already have ${replies} being written; wait for one to finish, then send this message again`);
  }
  return outcome === 'claimed';
}

/** Takes back a claim made for a message that was never stored (its client left first). */
export function dropThreadTurnClaim(ctx: AppContext, caller: Caller, thread: ThreadRow): Promise<void> {
  return dropTurnClaim(ctx.db, thread.id, caller.userId);
}

/** Once a thread has no unanswered input as of `checkedAt`: the claims made up to then are spent. */
export function endThreadTurnClaims(ctx: AppContext, threadRowId: string, checkedAt: Date): Promise<void> {
  return endTurnClaims(ctx.db, threadRowId, checkedAt.toISOString());
}

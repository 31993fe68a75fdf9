import { randomUUID } from 'node:crypto';
import type { AppContext, ThreadTurns } from '../context.js';
import { acquireLease } from '../distributed/cluster.store.js';
import type { StoredThreadRecord, ThreadRecord, ThreadRef, ThreadSink } from '../ports/thread-records.js';
import { requestThreadApproval } from './thread-approvals.js';
import { decodeThreadFrame, isTurnInput } from './thread-frames.js';
import { recordInThread, threadRefOf } from './threads.js';
import { releaseLease, type ThreadRow, threadFrames } from './threads.store.js';
import { endThreadTurnClaims } from './turn-claims.js';
import { TURN_LEASE_PREFIX } from './turn-claims.store.js';

/** A thread's turn lease outlives a few renewals, so a node that dies hands the thread on soon after. */
const LEASE_MS = 60_000;
const RENEW_MS = 20_000;

/** Runs one turn of a thread's agent (threads/thread-agent.ts), or a test's stand-in. */
export type TurnRunner = (
  ctx: AppContext,
  thread: ThreadRef,
  history: StoredThreadRecord[],
  sink: ThreadSink,
  signal: AbortSignal,
) => Promise<void>;

/** One thread's drive of turns on this node. */
interface TurnDrive {
  /** Whose message asked last: the payer of the next turn. */
  userId: string;
  /** Set by a wake that came while this drive ran: read the thread again before stopping. */
  again: boolean;
  done: Promise<void>;
}

/** This node's turns: one drive per thread at most, and what shutdown must stop. */
export class NodeThreadTurns implements ThreadTurns {
  readonly drives = new Map<string, TurnDrive>();
  readonly controllers = new Set<AbortController>();
  closed = false;

  constructor(readonly runTurn: TurnRunner) {}

  /**
   * One turn at a time per thread, across the cluster: a node runs turns only while it holds
   * the thread's lease (a cluster_leases row). A node that cannot take it leaves the input
   * stored: the holder looks for unanswered input after each turn and again after letting
   * the lease go, so input stored at any moment is answered by exactly one later turn.
   */
  wake(ctx: AppContext, thread: ThreadRef): void {
    if (this.closed) return;
    const running = this.drives.get(thread.id);
    if (running) {
      // Its loop reads the thread again before it stops: the new input is seen.
      running.userId = thread.userId;
      running.again = true;
      return;
    }
    const drive: TurnDrive = { userId: thread.userId, again: false, done: Promise.resolve() };
    this.drives.set(thread.id, drive);
    drive.done = driveThread(ctx, this, thread, drive).catch((error: unknown) =>
      ctx.log.error({ err: error, thread: thread.id }, 'thread turn failed'),
    );
  }

  /** Stops the running turns, which end (with their turn_end) before the database goes. */
  async stop(): Promise<void> {
    this.closed = true;
    for (const controller of this.controllers) controller.abort(new Error('The server is shutting down'));
    await Promise.all([...this.drives.values()].map((drive) => drive.done));
  }

  async settled(): Promise<void> {
    while (this.drives.size > 0) await Promise.all([...this.drives.values()].map((drive) => drive.done));
  }
}

/** Gives this context turns of its own whose agent is a stand-in (domain tests of the plumbing alone). */
export function useTurnRunner(ctx: AppContext, runTurn: TurnRunner): void {
  ctx.threadTurns = new NodeThreadTurns(runTurn);
}

const leaseName = (threadRowId: string) => `${TURN_LEASE_PREFIX}${threadRowId}`;

async function historyOf(ctx: AppContext, threadRowId: string): Promise<(StoredThreadRecord & { through?: number })[]> {
  return (await threadFrames(ctx.db, threadRowId)).map((frame) => decodeThreadFrame(frame));
}

/**
 * Input (a message, a notification) that no turn has seen: stored after the `through` of
 * every turn end (thread-frames.ts). A message stored during a turn comes before that
 * turn's end but after its `through`, so it still counts.
 */
function unanswered(history: (StoredThreadRecord & { through?: number })[]): boolean {
  let seen = 0;
  for (const one of history) if (one.record.type === 'agent.turn_end') seen = Math.max(seen, one.through ?? one.sequence);
  return history.some((one) => one.sequence > seen && isTurnInput(one.record));
}

/**
 * Asks for a turn of the thread's agent for `userId`'s message: now, or once the turn
 * running ends (ThreadTurns.wake). Returns at once.
 */
export function wakeThread(ctx: AppContext, thread: ThreadRow, userId: string): void {
  ctx.threadTurns.wake(ctx, threadRefOf(thread, userId));
}

/** A lease of the thread's turns for one drive: take (or renew) it, and let it go. */
function threadLease(ctx: AppContext, threadRowId: string) {
  const holder = `${ctx.config.nodeId}:${randomUUID()}`;
  return {
    take(): Promise<boolean> {
      const now = ctx.clock.now();
      return acquireLease(ctx.db, {
        name: leaseName(threadRowId),
        holder,
        nowIso: now.toISOString(),
        expiresIso: new Date(now.getTime() + LEASE_MS).toISOString(),
      });
    },
    release: () => releaseLease(ctx.db, leaseName(threadRowId), holder),
  };
}

async function driveThread(ctx: AppContext, turns: NodeThreadTurns, thread: ThreadRef, drive: TurnDrive): Promise<void> {
  const lease = threadLease(ctx, thread.id);
  try {
    for (;;) {
      drive.again = false;
      if (turns.closed || !(await lease.take())) return;
      const stopRenewing = ctx.clock.every(RENEW_MS, () => {
        lease.take().catch((error: unknown) => ctx.log.warn({ err: error, thread: thread.id }, 'renewing a thread lease failed'));
      });
      try {
        await turnsWhileHeld(ctx, turns, thread, drive);
      } finally {
        stopRenewing();
        await lease.release();
      }
      // Input stored while the lease was held went unanswered if its sender could not take it.
      // The drive is let go in the same step as this check, so a wake after it starts a new one.
      const checkedAt = ctx.clock.now();
      if (!unanswered(await historyOf(ctx, thread.id)) && !drive.again) {
        // Every turn asked for up to the check has run: its senders may ask for more.
        await endThreadTurnClaims(ctx, thread.id, checkedAt);
        // A wake while the claims were ended found this drive still registered and left its
        // input to it: go round again rather than let the drive go with that input unanswered.
        if (!drive.again) return;
      }
    }
  } finally {
    turns.drives.delete(thread.id);
  }
}

/** Runs turns until no input is left that a turn has not seen. */
async function turnsWhileHeld(ctx: AppContext, turns: NodeThreadTurns, thread: ThreadRef, drive: TurnDrive): Promise<void> {
  let readAt = ctx.clock.now();
  let history = await historyOf(ctx, thread.id);
  while (!turns.closed && unanswered(history)) {
    await runOneTurn(ctx, turns, { ...thread, userId: drive.userId }, { history, readAt });
    readAt = ctx.clock.now();
    history = await historyOf(ctx, thread.id);
  }
}

/** One turn over `history`, with a sink that stores and announces, and ends the turn if the agent did not. */
async function runOneTurn(
  ctx: AppContext,
  turns: NodeThreadTurns,
  thread: ThreadRef,
  seen: { history: StoredThreadRecord[]; readAt: Date },
): Promise<void> {
  const { history } = seen;
  const through = history.at(-1)?.sequence ?? 0;
  const controller = new AbortController();
  turns.controllers.add(controller);
  let ended = false;
  // A sender who sees the turn end may ask again at once: the claims this turn answers are
  // spent before its end is announced (claims made while it ran are the next turn's). A
  // failure here must not keep the end from being stored; the drive spends them after.
  const endAnsweredClaims = () =>
    endThreadTurnClaims(ctx, thread.id, seen.readAt).catch((error: unknown) =>
      ctx.log.warn({ err: error, thread: thread.id }, 'the claims of an ended turn were not spent yet'),
    );
  const sink: ThreadSink = {
    async append(records: ThreadRecord[]) {
      if (records.some((record) => record.type === 'agent.turn_end')) {
        ended = true;
        await endAnsweredClaims();
      }
      return (await recordInThread(ctx, thread.id, records, through)).map(({ frame: _frame, ...stored }) => stored);
    },
    requestApproval: (request, signal) => requestThreadApproval(ctx, thread, request, signal),
  };
  try {
    await turns.runTurn(ctx, thread, history, sink, controller.signal);
  } catch (error) {
    ctx.log.error({ err: error, thread: thread.id }, 'thread agent turn threw');
  } finally {
    turns.controllers.delete(controller);
  }
  // Every turn ends with a turn_end, or the thread would look unanswered for good.
  if (!ended) {
    const reason = controller.signal.aborted ? 'The server stopped during this turn' : 'The turn failed';
    await endAnsweredClaims();
    await recordInThread(
      ctx,
      thread.id,
      [{ type: 'agent.turn_end', messageId: randomUUID(), stopReason: 'error', reason }],
      through,
    );
  }
}

/** Resolves once no turn runs on this context's node (tests wait on it rather than sleeping). */
export function threadTurnsSettled(ctx: AppContext): Promise<void> {
  return ctx.threadTurns.settled();
}

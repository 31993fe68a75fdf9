import { executionCost, refundRun } from '../billing/charges.js';
import type { AppContext } from '../context.js';
import { retryOnConnectionLoss, retryWhileRefused } from '../db/connection-loss.js';
import type { StopReason } from '../db/tables-runs.js';
import type { AfterCommit, ClosingWork, RunEndName, RunLifeEvents } from '../ports/run-life.js';
import type { RunTarget, StopCause } from '../ports/runs.js';
import { type RunResult, resultWithoutRun } from '../runtime/runtime.js';
import { OutputOverLimit } from '../sandbox/output-limits.js';
import type { NewEvent } from './event-codec.js';
import { recordEvents } from './events.js';
import { findExecution, workingExecutionsOf } from './executions.store.js';
import { closeRunJournals } from './run-journal.js';
import type { RunOutput } from './run-output.js';

function idle(reason: StopReason): NewEvent {
  return { type: 'session.status_idle', payload: { stop_reason: { type: reason } } };
}

type RunEnding =
  | { kind: 'completed'; cost: number; artifactId: string | undefined }
  /** `refund`: set when the service stopped the run (it was shutting down), not a person. */
  | { kind: 'stopped'; refund?: string }
  /** `refund`: why the run's charges are given back (the end of the refund's description), when they are. */
  | { kind: 'failed'; reason: string; stopReason: 'error' | 'limit_reached'; refund?: string };

const SHUTDOWN_STOP =
  'The server was shut down before this run finished, so it was stopped; it costs you nothing. Send your message again to run it.';

const REFUNDED_BECAUSE = {
  service: 'the service failed it',
  'own-key': 'your own model key was refused before it did any work',
} as const;

/**
 * Settles a run that completed: its files become its artifact. Its price was held at start
 * and its model calls were charged as they were made.
 */
async function settle(ctx: AppContext, executionId: string, output?: RunOutput): Promise<RunEnding> {
  const cost = await retryOnConnectionLoss(() => executionCost(ctx.db, executionId));
  try {
    return { kind: 'completed', cost, artifactId: await output?.complete(cost) };
  } catch (error) {
    // The run's own doing, like any other limit it went over: it keeps its charges.
    if (error instanceof OutputOverLimit) return { kind: 'failed', reason: error.message, stopReason: 'error' };
    const reason = `the run's files could not be stored: ${(error as Error).message}`;
    return { kind: 'failed', reason, stopReason: 'error', refund: REFUNDED_BECAUSE.service };
  }
}

/**
 * Stores a run's closing events with its new status. They must land, or the run stays
 * working and its streams open until a restart: a write the database refused (a full disk,
 * a lock) is tried again, since a refused transaction wrote nothing; recordEvents itself
 * tries again after a lost connection.
 */
function recordEnding(...args: Parameters<typeof recordEvents>) {
  return retryWhileRefused(() => recordEvents(...args));
}

/**
 * Gives back what the execution's current run was charged and returns the execution's cost
 * after it: what its earlier runs cost, as written at their ends (each was interrupted).
 */
async function refundLastRun(ctx: AppContext, executionId: string, why: string): Promise<number> {
  const earlier = (await retryOnConnectionLoss(() => findExecution(ctx.db, executionId)))?.cost ?? 0;
  await refundRun(ctx, executionId, { earlier, why });
  return earlier;
}

/** The execution's cost once a run that did not complete ends: refunded first when `refund` says why. */
function costAfterEnding(ctx: AppContext, executionId: string, refund: string | undefined): Promise<number> {
  return refund ? refundLastRun(ctx, executionId, refund) : retryOnConnectionLoss(() => executionCost(ctx.db, executionId));
}

/**
 * What takes part in the transaction storing a run's end (ctx.runLife's closing listeners:
 * the run's webhooks), with the execution's skill and interface read in it; undefined when
 * nothing does, and the end is stored without a transaction of its own.
 */
function closingWithin(
  executionId: string,
  work: ClosingWork | undefined,
  after: AfterCommit[],
): ((trx: Parameters<ClosingWork>[0]) => Promise<void>) | undefined {
  if (!work) return undefined;
  return async (trx) => {
    // A transaction tried again after a lost connection starts over: so does what it set off.
    after.length = 0;
    const execution = await findExecution(trx, executionId);
    if (!execution) return;
    after.push(...(await work(trx, { skillSlug: execution.skill_slug, interface: execution.interface })));
  };
}

/**
 * Ends a run: settles it, stores its closing events with the execution's new status (and
 * whatever the run's closing listeners write with them), then tells the run's life of it.
 */
export async function finishRun(
  ctx: AppContext,
  target: RunTarget,
  result: RunResult,
  output?: RunOutput,
  stoppedBy: StopCause = 'person',
) {
  const { executionId, workspaceId } = target;
  const { outcome } = result;
  const ending: RunEnding =
    outcome.kind === 'completed'
      ? await settle(ctx, executionId, output)
      : outcome.kind === 'failed'
        ? {
            kind: 'failed',
            reason: outcome.reason,
            stopReason: 'error',
            ...(outcome.fault ? { refund: REFUNDED_BECAUSE[outcome.fault] } : {}),
          }
        : outcome.kind === 'limit_reached'
          ? { kind: 'failed', reason: outcome.reason, stopReason: 'limit_reached' }
          : stoppedBy === 'shutdown'
            ? { kind: 'stopped', refund: `the server shut down before it finished (${ctx.clock.now().toISOString()})` }
            : { kind: 'stopped' };
  if (ending.kind !== 'completed') await output?.fail();
  const nowIso = ctx.clock.now().toISOString();
  // What the closing listeners set off once the closing events committed (a webhook's delivery).
  const afterCommit: AfterCommit[] = [];
  const within = <N extends RunEndName>(name: N, event: RunLifeEvents[N]) =>
    closingWithin(executionId, ctx.runLife.closingWork(name, event), afterCommit);
  let told: () => Promise<void>;
  if (ending.kind === 'completed') {
    // artifactId (beyond the spec's fields) tells a client which artifact the run wrote.
    const payload = {
      summary: result.summary,
      cost: ending.cost,
      tokenUsage: result.tokenUsage,
      ...(ending.artifactId ? { artifactId: ending.artifactId } : {}),
    };
    const completed = {
      executionId,
      workspaceId,
      at: nowIso,
      cost: ending.cost,
      ...(ending.artifactId ? { artifactId: ending.artifactId } : {}),
    };
    await recordEnding(
      ctx,
      executionId,
      [{ type: 'execution.result', payload }, idle('end_turn')],
      { status: 'completed', stop_reason: 'end_turn', completed_at: nowIso, cost: ending.cost },
      within('run.completed', completed),
    );
    told = () => ctx.runLife.emit('run.completed', completed);
  } else if (ending.kind === 'stopped') {
    // A run a person interrupted keeps its charge (it ran, and may have delivered results):
    // the execution's cost is its runs' so far, and the next run's refund starts past it.
    // One the server stopped on its way down is refunded: no one asked for that stop, and
    // running it again costs a new price.
    const cost = await costAfterEnding(ctx, executionId, ending.refund);
    const closing: NewEvent[] = [idle('interrupt')];
    if (ending.refund) closing.unshift({ type: 'agent.info', payload: { message: SHUTDOWN_STOP } });
    const stopped = { executionId, workspaceId, at: nowIso, cost };
    await recordEnding(
      ctx,
      executionId,
      closing,
      { status: 'idle', stop_reason: 'interrupt', cost },
      within('run.stopped', stopped),
    );
    told = () => ctx.runLife.emit('run.stopped', stopped);
  } else {
    // What the run's model calls were charged stays charged, and shows as its cost; a
    // refunded run costs nothing, and the execution what its interrupted runs before it did.
    const cost = await costAfterEnding(ctx, executionId, ending.refund);
    const info: NewEvent = { type: 'agent.info', payload: { message: ending.reason } };
    const failed = { executionId, workspaceId, at: nowIso, cost, reason: ending.reason, stopReason: ending.stopReason };
    await recordEnding(
      ctx,
      executionId,
      [info, idle(ending.stopReason)],
      { status: 'failed', stop_reason: ending.stopReason, completed_at: nowIso, cost },
      within('run.failed', failed),
    );
    told = () => ctx.runLife.emit('run.failed', failed);
  }
  for (const then of afterCommit) then();
  // Only now that the run has ended for good: its journal let it resume until then.
  if (ctx.runQueue) {
    await closeRunJournals(ctx, executionId).catch((error: unknown) =>
      ctx.log.error({ err: error, executionId }, "a run's journal could not be dropped"),
    );
  }
  await told();
}

/** Ends a run the service failed before its skill did any work; it is not charged. */
export function failWithoutRun(ctx: AppContext, target: RunTarget, reason: string, output?: RunOutput) {
  return finishRun(ctx, target, resultWithoutRun({ kind: 'failed', reason, fault: 'service' }), output);
}

/** Ends a run whose node went silent mid-run (it died, or was cut off): failed, with its closing events. */
export function failRunOfLostNode(ctx: AppContext, target: RunTarget): Promise<void> {
  return failWithoutRun(ctx, target, 'the node running this run stopped answering');
}

/** Ends a run that waited for a worker and fell out of the queue; it never started, so it is not charged. */
export function failRunWithoutJob(ctx: AppContext, target: RunTarget): Promise<void> {
  return failWithoutRun(ctx, target, 'the run was lost from the queue before a worker took it; start it again');
}

/**
 * At start-up no run can be in progress: any execution still marked working was cut off by
 * a crash. Each is ended as failed, with its closing events, so no stream waits forever.
 */
export async function failAbandonedRuns(ctx: AppContext): Promise<number> {
  const abandoned = await workingExecutionsOf(ctx.db, ctx.config.nodeId, ctx.config.redisUrl !== undefined);
  for (const execution of abandoned) {
    const target = { executionId: execution.execution_id, workspaceId: execution.workspace_id };
    await failWithoutRun(ctx, target, 'the server stopped while this run was in progress');
  }
  return abandoned.length;
}

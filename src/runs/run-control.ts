import { holdRunPrice, quoteRun, requireCanExecute } from '../billing/charges.js';
import { startNeeds } from '../billing/start-needs.js';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import { lockRow } from '../db/locks.js';
import { runSteps } from '../db/statement-steps.js';
import { Conflict, ExecutionRunning, PaymentRequired, ServiceUnavailable } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import type { RunQueue, RunTarget } from '../ports/runs.js';
import { resultWithoutRun } from '../runtime/runtime.js';
import type { CancelResult } from '../sdk/types.js';
import { findSkill } from '../skills/workspace-skills.js';
import type { ExecutionEvent } from './event-codec.js';
import { announce, recordEvents, textContent } from './events.js';
import { appendEvents, type StoredEvent } from './events.store.js';
import { createExecution, executionOf, requireInputFits, requireInputWithinLimit } from './executions.js';
import {
  claimIdleExecution,
  countWorkingForUser,
  type ExecutionRow,
  findExecution,
  hasWorkingExecution,
  takeQueuedRun,
} from './executions.store.js';
import { stopOnOwner, stopOwnStartingRun } from './remote-stop.js';
import { finishRun } from './run-ending.js';
import { launchRun } from './runner.js';

export const BUSY =
  'An execution is already running in this workspace. Wait for it to finish, or cancel it, then start this one again.';

/** A node told to stop lets its runs finish but takes no new one: the client starts it again elsewhere. */
export function requireNotDraining(ctx: AppContext): void {
  if (ctx.runs.draining) throw new ServiceUnavailable('This server is shutting down; start the run again in a moment');
}

/** Refused before anything is made while another execution of the workspace is working. */
export async function requireNoRunGoing(ctx: AppContext, workspaceId: string): Promise<void> {
  if (await hasWorkingExecution(ctx.db, workspaceId)) throw new ExecutionRunning(BUSY);
}

/** Thrown inside the claiming transaction to roll it back when the execution was not idle. */
class NotIdle extends Error {}

/**
 * Starts a run of an idle execution with `text`. The claim (idle to working), the price
 * held from the payer's balance, the echoed user.message and session.status_running are
 * stored together. Refused with 429 EXECUTION_RUNNING: a second working execution in the
 * workspace (the database's one-working index), more running executions for one user than
 * RUNS_PER_USER (counted under a lock on the user), more runs on this process than
 * RUNS_PER_SERVER.
 */
export async function startRun(ctx: AppContext, caller: Caller, executionId: string, text: string): Promise<ExecutionEvent[]> {
  const execution = await executionOf(ctx, caller, executionId);
  requireNotDraining(ctx);
  requireInputWithinLimit(ctx, text);
  if (execution.status === 'completed' || execution.status === 'failed') {
    throw new Conflict(`This execution has ${execution.status}; rerun it to run again`);
  }
  if (execution.status === 'working') throw new ExecutionRunning(BUSY);
  const skill = await findSkill(ctx, execution.workspace_id, execution.skill_slug);
  // The first run's message is its input; a later one continues a run the input already started.
  if (skill && execution.started_at === null) requireInputFits(skill, text);
  // Every run pays its price, a later one of an interrupted execution too, and must afford its
  // first model call: refused before anything is stored.
  const needs = skill && startNeeds(ctx, caller, skill, text);
  await requireCanExecute(ctx, caller, needs?.price ?? 0, needs?.firstCallHold);
  const quote = await quoteRun(ctx, executionId, skill?.price ?? 0);
  if (ctx.runQueue) return queueRun(ctx, ctx.runQueue, execution, text, quote);
  const { runsPerUser, runsPerServer } = ctx.config.executions;
  if (!ctx.runs.reserve(runsPerServer)) {
    throw new ExecutionRunning(
      `This server is already running as many skills as it may at once (${runsPerServer}); try again shortly`,
    );
  }
  try {
    const stored = await claimRun(ctx, executionId, text, quote, { runsPerUser, nodeId: ctx.config.nodeId });
    announce(ctx, executionId, stored);
    await ctx.runLife.emit('run.started', { executionId, workspaceId: execution.workspace_id });
    await launchRun(ctx, { executionId, workspaceId: execution.workspace_id }, skill, text);
    return stored.map(({ event }) => event);
  } finally {
    ctx.runs.release();
  }
}

/**
 * In a cluster: the run is claimed here (the one-working rule is the database's, whichever
 * node asks) and executed by whichever worker takes it from the queue.
 */
async function queueRun(
  ctx: AppContext,
  runQueue: RunQueue,
  execution: ExecutionRow,
  text: string,
  quote: { userId: string; amount: number },
): Promise<ExecutionEvent[]> {
  const { execution_id: executionId, workspace_id: workspaceId } = execution;
  const stored = await claimRun(ctx, executionId, text, quote, { runsPerUser: ctx.config.executions.runsPerUser, nodeId: null });
  announce(ctx, executionId, stored);
  await ctx.runLife.emit('run.started', { executionId, workspaceId });
  const startSequence = stored[0]?.event.sequence ?? 0;
  try {
    await runQueue.enqueue({ executionId, workspaceId, skillSlug: execution.skill_slug, text, startSequence });
  } catch (error) {
    await finishRun(
      ctx,
      { executionId, workspaceId },
      resultWithoutRun({ kind: 'failed', reason: `the run could not be queued: ${(error as Error).message}`, fault: 'service' }),
    );
  }
  return stored.map(({ event }) => event);
}

async function claimRun(
  ctx: AppContext,
  executionId: string,
  text: string,
  quote: { userId: string; amount: number },
  claim: { runsPerUser: number; nodeId: string | null },
): Promise<StoredEvent[]> {
  const { runsPerUser, nodeId } = claim;
  const nowIso = ctx.clock.now().toISOString();
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      await lockRow(trx, 'users', quote.userId);
      if (!(await claimIdleExecution(trx, executionId, { nowIso, nodeId, text }))) throw new NotIdle();
      if ((await countWorkingForUser(trx, quote.userId)) > runsPerUser) {
        throw new ExecutionRunning(
          `You already have ${runsPerUser} runs in progress, the most one user may run at once; wait for one to finish`,
        );
      }
      if (!(await holdRunPrice(trx, quote, executionId, nowIso))) {
        throw new PaymentRequired('Not enough credits to run this skill: buy a credit pack first');
      }
      return runSteps(
        trx,
        appendEvents(
          trx,
          executionId,
          [
            { type: 'user.message', payload: textContent(text) },
            { type: 'session.status_running', payload: {} },
          ],
          nowIso,
        ),
      );
    });
  } catch (error) {
    if (isUniqueViolation(error) || error instanceof NotIdle) throw new ExecutionRunning(BUSY);
    throw error;
  }
}

/**
 * Stops a working run: here, or on the node of the cluster that runs it, or (when no live
 * process has it) by closing it in the store.
 */
async function stopRun(ctx: AppContext, target: RunTarget & { ownerNode: string | null }): Promise<boolean> {
  const { executionId, ownerNode } = target;
  const active = ctx.runs.get(executionId);
  if (active) {
    active.stop();
    await active.settled;
    return true;
  }
  let owner = ownerNode;
  // Taken by no attempt: nothing will run it here, and it is ended below.
  const taker = { node: ctx.config.nodeId, attempt: null };
  if (owner === null && ctx.runQueue && !(await takeQueuedRun(ctx.db, executionId, taker))) {
    // A worker took it between our read and now: stop it there.
    owner = (await findExecution(ctx.db, executionId))?.owner_node ?? null;
  }
  if (owner === ctx.config.nodeId) {
    // This node took the run and is still starting it: a stop closed in the store now would
    // be lost, and the run would go on to its end.
    if (await stopOwnStartingRun(ctx, executionId)) return true;
  } else if (owner !== null && (await stopOnOwner(ctx, executionId, owner))) return true;
  await finishRun(ctx, target, resultWithoutRun({ kind: 'stopped' }));
  return false;
}

async function interruptRun(ctx: AppContext, caller: Caller, executionId: string): Promise<ExecutionEvent[]> {
  const execution = await executionOf(ctx, caller, executionId);
  if (execution.status !== 'working') throw new Conflict(`This execution is not running (it is ${execution.status})`);
  const events = await recordEvents(ctx, executionId, [{ type: 'user.interrupt', payload: {} }]);
  await stopRun(ctx, { executionId, workspaceId: execution.workspace_id, ownerNode: execution.owner_node });
  return events;
}

/** An event a client posts: a message that starts a run, or an interrupt of the one running. */
export type ClientEvent = { type: 'user.interrupt' } | { type: 'user.message'; content: { text: string }[] };

/**
 * Handles a client's events in order and answers with every event they produced. The texts
 * of a message's blocks, joined by newlines, are the run's input; `beforeStart` is called
 * before each run is started (where the caller counts starts against its limit).
 */
export async function postClientEvents(
  ctx: AppContext,
  caller: Caller,
  executionId: string,
  events: ClientEvent[],
  beforeStart: () => Promise<void>,
): Promise<ExecutionEvent[]> {
  const produced: ExecutionEvent[] = [];
  for (const event of events) {
    if (event.type === 'user.interrupt') {
      produced.push(...(await interruptRun(ctx, caller, executionId)));
      continue;
    }
    await beforeStart();
    const text = event.content.map((block) => block.text).join('\n');
    produced.push(...(await startRun(ctx, caller, executionId, text)));
  }
  return produced;
}

export async function cancelRun(ctx: AppContext, caller: Caller, executionId: string): Promise<CancelResult> {
  const execution = await executionOf(ctx, caller, executionId);
  if (execution.status !== 'working') {
    return {
      success: false,
      message: `The execution is not running (it is ${execution.status})`,
      processKilled: false,
      actualStatus: execution.status,
    };
  }
  const processKilled = await stopRun(ctx, {
    executionId,
    workspaceId: execution.workspace_id,
    ownerNode: execution.owner_node,
  });
  const after = await findExecution(ctx.db, executionId);
  return { success: true, message: 'The run was stopped', processKilled, actualStatus: after?.status ?? 'idle' };
}

/** A new execution of a completed one's skill with new input, started at once. */
export async function rerunExecution(ctx: AppContext, caller: Caller, executionId: string, input: string) {
  const parent = await executionOf(ctx, caller, executionId);
  if (parent.status !== 'completed') throw new Conflict(`Only a completed execution can be rerun (this one is ${parent.status})`);
  requireNotDraining(ctx);
  requireInputWithinLimit(ctx, input);
  await requireNoRunGoing(ctx, caller.workspaceId);
  const child = await createExecution(ctx, caller, {
    skillSlug: parent.skill_slug,
    input,
    source: parent.source,
    interface: parent.interface,
    parentExecutionId: parent.execution_id,
  });
  await startRun(ctx, caller, child.execution_id, input);
  return {
    executionId: child.execution_id,
    parentExecutionId: parent.execution_id,
    skillName: child.skill_name,
    status: 'started' as const,
    message: 'Rerun started',
  };
}

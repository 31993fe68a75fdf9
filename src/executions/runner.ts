import { RunOutput } from '../artifacts/run-output.js';
import { executionCost, refundRun } from '../billing/charges.js';
import { runAccount } from '../billing/run-account.js';
import type { AppContext } from '../context.js';
import { isConnectionLost, retryOnConnectionLoss, retryWhileRefused } from '../db/connection-loss.js';
import type { StopReason } from '../db/tables.js';
import { MissingRunFile, prepareUploads, removeUploads } from '../files/run-uploads.js';
import { closeRunJournals, openRunJournal } from '../journal/run-journal.js';
import { invalidate, signalExecution } from '../realtime/control-messages.js';
import type { Skill } from '../skills/registry.js';
import {
  type RunMessage,
  type RunResult,
  type RunUploads,
  resultWithoutRun,
  SkillRefused,
  type StartedRun,
} from '../skills/runtime.js';
import { runtimeFor } from '../skills/runtimes.js';
import { UPLOADS_FOLDER } from '../skills/skill-command.js';
import { queueRunEnd, type RunEnd } from '../webhooks/producers.js';
import type { ActiveRun, StopCause } from './active-runs.js';
import { BatchedEventWriter } from './event-batches.js';
import type { NewEvent } from './event-codec.js';
import { recordEvents, textContent } from './events.js';
import { findExecution, ownsRun, workingExecutionsOf } from './executions.store.js';
import { handOnRun } from './hand-on.js';
import type { RunTarget } from './run-queue.js';

function eventOf(message: RunMessage): NewEvent {
  switch (message.type) {
    case 'message':
      return { type: 'agent.message', payload: textContent(message.text) };
    case 'tool_use':
      return { type: 'agent.tool_use', payload: { name: message.name, tool: message.name, label: message.label } };
    case 'tool_call':
      return { type: 'agent.tool_use', payload: { name: message.name, tool: message.id, label: message.label } };
    case 'model_call':
      return { type: 'span.model_request_end', payload: { usage: message.usage } };
    case 'thinking':
      return { type: 'agent.thinking', payload: {} };
    case 'info':
      return { type: 'agent.info', payload: { message: message.message } };
    case 'file':
      return {
        type: 'agent.tool_use',
        payload: { name: 'write_file', tool: 'write_file', label: `Wrote ${message.path} (${message.size} bytes)` },
      };
  }
}

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

/** Ends a run: settles it, then stores its closing events with the execution's new status. */
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
  let webhooksQueued = false;
  // The run's webhooks commit with its closing events, or not at all.
  const queueEnd = (end: Omit<RunEnd, 'executionId'>) => async (trx: Parameters<typeof queueRunEnd>[0]) => {
    webhooksQueued = await queueRunEnd(trx, nowIso, { executionId, ...end });
  };
  if (ending.kind === 'completed') {
    // artifactId (beyond the spec's fields) tells a client which artifact the run wrote.
    const payload = {
      summary: result.summary,
      cost: ending.cost,
      tokenUsage: result.tokenUsage,
      ...(ending.artifactId ? { artifactId: ending.artifactId } : {}),
    };
    await recordEnding(
      ctx,
      executionId,
      [{ type: 'execution.result', payload }, idle('end_turn')],
      { status: 'completed', stop_reason: 'end_turn', completed_at: nowIso, cost: ending.cost },
      queueEnd({
        status: 'completed',
        stopReason: 'end_turn',
        cost: ending.cost,
        ...(ending.artifactId ? { artifactId: ending.artifactId } : {}),
      }),
    );
    signalExecution(ctx, workspaceId, 'execution-completed', executionId, 'completed');
  } else if (ending.kind === 'stopped') {
    // A run a person interrupted keeps its charge (it ran, and may have delivered results):
    // the execution's cost is its runs' so far, and the next run's refund starts past it.
    // One the server stopped on its way down is refunded: no one asked for that stop, and
    // running it again costs a new price.
    const cost = await costAfterEnding(ctx, executionId, ending.refund);
    const closing: NewEvent[] = [idle('interrupt')];
    if (ending.refund) closing.unshift({ type: 'agent.info', payload: { message: SHUTDOWN_STOP } });
    await recordEnding(ctx, executionId, closing, { status: 'idle', stop_reason: 'interrupt', cost });
    signalExecution(ctx, workspaceId, 'execution-progress', executionId, 'idle');
  } else {
    // What the run's model calls were charged stays charged, and shows as its cost; a
    // refunded run costs nothing, and the execution what its interrupted runs before it did.
    const cost = await costAfterEnding(ctx, executionId, ending.refund);
    const info: NewEvent = { type: 'agent.info', payload: { message: ending.reason } };
    await recordEnding(
      ctx,
      executionId,
      [info, idle(ending.stopReason)],
      { status: 'failed', stop_reason: ending.stopReason, completed_at: nowIso, cost },
      queueEnd({ status: 'failed', stopReason: ending.stopReason, cost, reason: ending.reason }),
    );
    signalExecution(ctx, workspaceId, 'execution-failed', executionId, 'failed');
  }
  if (webhooksQueued) ctx.webhooks.kick();
  // Only now that the run has ended for good: its journal let it resume until then.
  if (ctx.runQueue) {
    await closeRunJournals(ctx, executionId).catch((error: unknown) =>
      ctx.log.error({ err: error, executionId }, "a run's journal could not be dropped"),
    );
  }
  // A finished run may have made artifacts and spent credits too.
  invalidate(ctx, workspaceId, ['executions', 'artifacts', 'balance', 'transactions']);
  for (const listener of ctx.runEndListeners) {
    await listener(ctx, executionId).catch((error: unknown) =>
      ctx.log.error({ err: error, executionId }, 'telling a listener of a run end failed'),
    );
  }
}

/** Ends a run the service failed before its skill did any work; it is not charged. */
function failWithoutRun(ctx: AppContext, target: RunTarget, reason: string, output?: RunOutput) {
  return finishRun(ctx, target, resultWithoutRun({ kind: 'failed', reason, fault: 'service' }), output);
}

/** Which attempt at a queued run this is: the run's start, and how often it was handed on after its worker was lost. */
export interface RunAttempt {
  runStart: number;
  resumes: number;
}

const RESTARTED =
  'This run started again from the beginning on another worker: the worker running it stopped answering, and the skill says it is safe to restart.';

/**
 * Runs a skill for an execution already marked working; returns once its runtime has started
 * it. `attempt` (a cluster's queued runs): an agent run journals its steps, and a run handed
 * on after its worker was lost goes on from its journal (or, a script, starts again).
 */
export async function launchRun(
  ctx: AppContext,
  target: RunTarget,
  skill: Skill | undefined,
  text: string,
  attempt?: RunAttempt,
): Promise<void> {
  const { executionId, workspaceId } = target;
  const runtime = skill && runtimeFor(skill.runtime, ctx);
  if (!skill || !runtime) {
    await failWithoutRun(ctx, target, 'this skill cannot run on this server');
    return;
  }
  let uploads: RunUploads | undefined;
  try {
    uploads = await prepareUploads(ctx, executionId);
  } catch (error) {
    const reason =
      error instanceof MissingRunFile ? error.message : `the run's files could not be prepared: ${(error as Error).message}`;
    await failWithoutRun(ctx, target, reason);
    return;
  }
  // Removed before the run's end is stored, so nothing of it is left once its stream ends.
  const clearUploads = async () => {
    if (!uploads) return;
    await removeUploads(uploads.dir).catch((error: unknown) =>
      ctx.log.error({ err: error, executionId }, "a run's files could not be removed"),
    );
  };
  const output = new RunOutput(ctx, {
    executionId,
    workspaceId,
    skillSlug: skill.slug,
    skillName: skill.name,
    input: text,
    // A script sees its files as ./uploads/ of its output folder.
    notOutput: uploads && skill.runtime === 'script' ? UPLOADS_FOLDER : undefined,
  });
  const stopping = new AbortController();
  // A sandbox started ahead of need, when a pool has one for this run: its output folder is the run's.
  const warm =
    skill.runtime === 'script'
      ? await ctx.scripts?.takeFor(skill, uploads)
      : await ctx.computers?.takeFor(skill, uploads, executionId);
  let started: StartedRun;
  let journaled = false;
  try {
    await output.open(warm?.output);
    const events = new BatchedEventWriter(async (batch) => {
      await recordEvents(ctx, executionId, batch);
      signalExecution(ctx, workspaceId, 'execution-progress', executionId, 'working');
    });
    const journal =
      attempt && skill.runtime === 'agent'
        ? await openRunJournal(ctx, { executionId, runStart: attempt.runStart }, attempt.resumes > 0)
        : undefined;
    journaled = journal !== undefined;
    if (attempt && attempt.resumes > 0 && !journal) await events.add({ type: 'agent.info', payload: { message: RESTARTED } });
    started = await runtime.start({
      skill,
      input: text,
      runId: executionId,
      outputDir: output.scratchDir,
      ...(uploads ? { uploads } : {}),
      ...(warm ? { warm } : {}),
      limits: ctx.config.executions,
      signal: stopping.signal,
      account: runAccount(ctx, executionId, journal?.writeIn),
      ...(journal ? { journal } : {}),
      // Handed to the writer at once, so events keep the order of the calls; a file's event
      // is stored once its run's artifact exists.
      onMessage: (message) => events.add(eventOf(message), message.type === 'file' ? output.noteFileWritten() : undefined),
    });
  } catch (error) {
    await warm?.release();
    await clearUploads();
    if (
      attempt &&
      skill.runtime === 'agent' &&
      isConnectionLost(error) &&
      (await handOnLostAttempt(ctx, target, skill, text, attempt))
    ) {
      await output.fail();
      return;
    }
    const reason = error instanceof SkillRefused ? error.message : `the skill could not start: ${(error as Error).message}`;
    await failWithoutRun(ctx, target, reason, output);
    return;
  }
  let stoppedBy: StopCause = 'person';
  const run: ActiveRun = {
    stop: (cause = 'person') => {
      if (!stopping.signal.aborted) stoppedBy = cause;
      stopping.abort();
    },
    settled: started.finished
      .then(
        (result) => ({ result }),
        (error: unknown) => ({ error }),
      )
      .then(async (ended) => {
        // The runtime releases a warm sandbox as its run ends; this covers one it never used.
        await warm?.release();
        await clearUploads();
        // A run handed to another worker while this one was cut off is that worker's to end.
        if (attempt && !(await retryOnConnectionLoss(() => ownsRun(ctx.db, executionId, ctx.config.nodeId)))) {
          ctx.log.warn({ executionId }, 'left the end of a run handed to another worker to it');
          await output.fail();
          return;
        }
        // An agent run that lost its database mid-step goes on from its journal, as if this worker had been lost.
        if ('error' in ended && attempt && journaled && isConnectionLost(ended.error)) {
          await output.fail();
          if (await handOnLostAttempt(ctx, target, skill, text, attempt)) return;
        }
        // A runtime that breaks (its store write failed, say) still ends its run, as the service's fault.
        const result =
          'result' in ended
            ? ended.result
            : resultWithoutRun({
                kind: 'failed',
                reason: `the run broke inside the service: ${(ended.error as Error).message}`,
                fault: 'service',
              });
        return finishRun(ctx, target, result, output, stoppedBy);
      })
      // Only when the database stayed away past every retry: the run stays working until
      // this node restarts (or, in a cluster, stops beating), and the process lives on.
      .catch((error: unknown) => ctx.log.error({ err: error, executionId }, 'a run ended but its end could not be stored'))
      .finally(() => ctx.runs.delete(executionId, run)),
  };
  ctx.runs.add(executionId, run);
}

/** Hands on a cluster run whose attempt here lost its database: true once a new attempt is queued (or another node took it). */
function handOnLostAttempt(
  ctx: AppContext,
  target: RunTarget,
  skill: Skill,
  text: string,
  attempt: RunAttempt,
): Promise<boolean> {
  const run = { ...target, skillSlug: skill.slug, text, startSequence: attempt.runStart };
  return handOnRun(ctx, run, ctx.config.nodeId).catch((error: unknown) => {
    ctx.log.error({ err: error, executionId: target.executionId }, 'a run that lost its database could not be handed on');
    return false;
  });
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

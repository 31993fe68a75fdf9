import { runAccount, runPayer } from '../billing/run-account.js';
import type { AppContext } from '../context.js';
import { isConnectionLost, retryOnConnectionLoss } from '../db/connection-loss.js';
import { MissingRunFile, prepareUploads, removeUploads } from '../files/run-uploads.js';
import type { ActiveRun, RunTarget, RunUploads, StopCause } from '../ports/runs.js';
import type { Skill } from '../ports/skills.js';
import { signalExecution } from '../realtime/control-messages.js';
import { type RunMessage, resultWithoutRun, type StartedRun } from '../runtime/runtime.js';
import { runtimeFor } from '../runtime/runtimes.js';
import { UPLOADS_FOLDER } from '../sandbox/skill-command.js';
import { SkillRefused } from '../sandbox/types.js';
import { BatchedEventWriter } from './event-batches.js';
import type { NewEvent } from './event-codec.js';
import { recordEvents, textContent } from './events.js';
import { ownsRun, type RunOwner } from './executions.store.js';
import { handOnRun } from './hand-on.js';
import { failWithoutRun, finishRun } from './run-ending.js';
import { openRunJournal } from './run-journal.js';
import { RunOutput } from './run-output.js';

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

/** Which attempt at a queued run this is: the run's start, and how often it was handed on after its worker was lost. */
export interface RunAttempt {
  runStart: number;
  resumes: number;
  /** This attempt's name in the run's owner, given as its worker took the run. */
  id: string;
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
  const payer = runPayer(ctx.db, executionId);
  const output = new RunOutput(ctx, {
    payer,
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
      ? await ctx.scripts?.takeFor(skill, uploads, executionId)
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
        ? await openRunJournal(
            ctx,
            { executionId, runStart: attempt.runStart },
            { owner: ownerFor(ctx, attempt), resuming: attempt.resumes > 0 },
          )
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
      account: runAccount(ctx, executionId, payer, journal?.writeIn),
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
  // Told before the run can end, so a listener hears of it before its end.
  await ctx.runLife.emit('run.executing', { executionId, workspaceId, runtime: skill.runtime });
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
        if (attempt && !(await retryOnConnectionLoss(() => ownsRun(ctx.db, executionId, ownerFor(ctx, attempt))))) {
          ctx.log.warn({ executionId }, 'left the end of a run handed to another worker to it');
          await output.fail();
          return ctx.runLife.emit('run.handedOver', target);
        }
        // An agent run that lost its database mid-step goes on from its journal, as if this worker had been lost.
        if ('error' in ended && attempt && journaled && isConnectionLost(ended.error)) {
          await output.fail();
          if (await handOnLostAttempt(ctx, target, skill, text, attempt)) return ctx.runLife.emit('run.handedOver', target);
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
  return handOnRun(ctx, run, ownerFor(ctx, attempt)).catch((error: unknown) => {
    ctx.log.error({ err: error, executionId: target.executionId }, 'a run that lost its database could not be handed on');
    return false;
  });
}

function ownerFor(ctx: AppContext, attempt: RunAttempt): RunOwner {
  return { node: ctx.config.nodeId, attempt: attempt.id };
}

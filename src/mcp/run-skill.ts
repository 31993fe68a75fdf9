import type { ArtifactView } from '../artifacts/artifact-view.js';
import { executionArtifacts } from '../artifacts/artifacts.js';
import type { AppContext } from '../context.js';
import type { ExecutionStatus, StopReason } from '../db/tables.js';
import { decodeFrame, type ExecutionEvent } from '../executions/event-codec.js';
import { createExecution, executionOf, executionStatus } from '../executions/executions.js';
import { startRun } from '../executions/run-control.js';
import type { Caller } from '../identity/callers.js';
import type { AnnouncedEvent } from '../realtime/bus.js';
import { type InlineFile, withStoredFiles } from './inline-files.js';

/** Where a run stands once it is over, as get_execution and run_skill report it. */
export interface ExecutionReport {
  executionId: string;
  skillSlug: string;
  status: ExecutionStatus;
  stopReason: StopReason | null;
  cost: number;
  startedAt: string | null;
  completedAt: string | null;
  /** The text of its agent.message events, joined by newlines. */
  output: string;
  /** What it delivered: an artifact taken back (its run failed, or was not paid for) has no files to read. */
  artifacts: ArtifactView[];
}

/** An execution of the caller's workspace, with what it said and what it wrote. */
export async function executionReport(ctx: AppContext, caller: Caller, executionId: string): Promise<ExecutionReport> {
  const row = await executionOf(ctx, caller, executionId);
  const [status, artifacts] = await Promise.all([
    executionStatus(ctx, caller, executionId),
    executionArtifacts(ctx, caller, executionId),
  ]);
  return {
    executionId,
    skillSlug: row.skill_slug,
    status: row.status,
    stopReason: row.stop_reason,
    cost: row.cost,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    output: status.outputBlocks.map((block) => block.text).join('\n'),
    artifacts: artifacts.filter((artifact) => artifact.status === 'completed'),
  };
}

const PROGRESS_TEXT_MAX = 200;

/** A line about an event for a progress notification; none for events with nothing to say. */
export function progressMessageOf(event: ExecutionEvent): string | null {
  const cut = (text: string) => (text.length > PROGRESS_TEXT_MAX ? `${text.slice(0, PROGRESS_TEXT_MAX - 1)}…` : text);
  switch (event.type) {
    case 'session.status_running':
      return 'Running';
    case 'agent.message':
      return cut(event.payload.content.map((block) => block.text).join(' '));
    case 'agent.tool_use':
      return cut(event.payload.label);
    case 'agent.info':
      return cut(event.payload.message);
    default:
      return null;
  }
}

/**
 * How often the store is asked whether the run ended, in case its closing announcement
 * was missed (a bus across nodes may drop one); the bus is what ends the wait normally.
 */
const STORE_CHECK_MS = 2000;

/**
 * Waits for an execution's run to end: subscribed to its events from now on, calling
 * `onEvent` for each, until a session.status_idle arrives or the store says it is over.
 * An aborted `signal` (the client went away) ends the wait, not the run.
 */
function runEnding(
  ctx: AppContext,
  caller: Caller,
  executionId: string,
  onEvent: (event: ExecutionEvent) => void,
  signal: AbortSignal,
) {
  let stop = () => {};
  const ended = new Promise<void>((resolve, reject) => {
    const receive = (announced: AnnouncedEvent) => {
      const event = decodeFrame(announced.frame);
      onEvent(event);
      if (event.type === 'session.status_idle') finish();
    };
    const check = setInterval(() => {
      executionOf(ctx, caller, executionId).then((row) => row.status !== 'working' && finish(), fail);
    }, STORE_CHECK_MS);
    function finish() {
      stop();
      resolve();
    }
    function fail(error: unknown) {
      stop();
      reject(error);
    }
    const abandon = () => fail(new Error('The client stopped waiting for the run'));
    stop = () => {
      clearInterval(check);
      ctx.bus.unsubscribe(executionId, receive);
      signal.removeEventListener('abort', abandon);
    };
    ctx.bus.subscribe(executionId, receive);
    signal.addEventListener('abort', abandon, { once: true });
    if (signal.aborted) abandon();
  });
  // It may settle while the run is still being started, before anyone awaits it; that
  // is not an unhandled rejection (runSkillToEnd awaits it next).
  ended.catch(() => {});
  return { ended, stop: () => stop() };
}

export interface NewRun {
  skillSlug: string;
  input: string;
  interface: string;
  /** Ids of files already in the workspace. */
  fileIds?: string[] | undefined;
  /** Files sent with the call, stored in the workspace before the run is created. */
  inlineFiles?: InlineFile[] | undefined;
}

/**
 * Creates an execution (given the files named and sent, DESIGN §15), runs it and waits
 * for the run to end, telling `onEvent` of every event on the way: REST's create and
 * start, with every rule they apply (input size, credits, one run per workspace, runs per
 * user and per server). Waiting does not hold the run: a caller that gives up leaves it
 * running, to be looked at or cancelled later.
 */
export async function runSkillToEnd(
  ctx: AppContext,
  caller: Caller,
  request: NewRun,
  onEvent: (event: ExecutionEvent) => void,
  signal: AbortSignal,
): Promise<ExecutionReport> {
  const execution = await withStoredFiles(ctx, caller, request.inlineFiles ?? [], (stored) =>
    createExecution(ctx, caller, {
      skillSlug: request.skillSlug,
      input: request.input,
      interface: request.interface,
      files: [...(request.fileIds ?? []), ...stored.map((file) => file.id)].map((fileId) => ({ fileId })),
    }),
  );
  // Subscribed before the run starts, so not even its first event goes unseen.
  const run = runEnding(ctx, caller, execution.execution_id, onEvent, signal);
  try {
    if (ctx.bus.ready) await ctx.bus.ready();
    await startRun(ctx, caller, execution.execution_id, request.input);
  } catch (error) {
    run.stop();
    throw error;
  }
  await run.ended;
  return executionReport(ctx, caller, execution.execution_id);
}

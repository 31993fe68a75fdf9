import type { AppContext } from '../context.js';
import type { Caller } from '../ports/callers.js';
import type { ExecutionEvent } from '../runs/event-codec.js';
import { createExecution } from '../runs/executions.js';
import { followRun } from '../runs/run-follow.js';
import { startCreated } from '../runs/run-now.js';
import { type ExecutionReport, executionReport } from '../runs/run-report.js';
import { type InlineFile, withStoredFiles } from './inline-files.js';

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
  const run = followRun(ctx, caller, execution.execution_id, onEvent, signal);
  try {
    if (ctx.bus.ready) await ctx.bus.ready();
    // The one call's start (POST /runs): the run works on the input the execution was made with.
    await startCreated(ctx, caller, execution);
  } catch (error) {
    run.stop();
    throw error;
  }
  await run.ended;
  return executionReport(ctx, caller, execution.execution_id);
}

import { artifactDetail, listArtifacts } from '../artifacts/artifacts.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { limitCallerExecutionStarts } from '../identity/rate-limits.js';
import type { ToolSpec } from '../models/conversation.js';
import type { Caller } from '../ports/callers.js';
import type { ThreadRef, ThreadSink } from '../ports/thread-records.js';
import { createExecution, requireInputWithinLimit } from '../runs/executions.js';
import { startRun } from '../runs/run-control.js';
import { executionReport } from '../runs/run-report.js';
import { findSkill } from '../skills/workspace-skills.js';
import { threadCaller } from './thread-agent-caller.js';
import { workspaceSkills } from './thread-agent-skills.js';
import { recordThreadRun } from './thread-runs.store.js';

/** Where a thread's tools act: the workspace and person of `caller`, in `thread`. */
export interface ThreadToolContext {
  ctx: AppContext;
  caller: Caller;
  thread: ThreadRef;
  sink: ThreadSink;
  signal: AbortSignal;
}

/** A tool call's answer to the model (`output`), and its line in the thread (`status`, `summary`). */
export interface ThreadToolOutcome {
  output: string;
  isError: boolean;
  status: 'ok' | 'denied' | 'error';
  summary: string;
}

/** What one answer may hand the model, and what an artifact's or a run's text may take of it. */
const OUTPUT_MAX = 32_000;
const TEXT_MAX = 24_000;
const SUMMARY_MAX = 200;
const ARTIFACT_PAGE = { default: 20, max: 50 };
/** How the runs a thread starts show in the execution history's interface filter. */
export const THREAD_INTERFACE = 'agent-thread';

const str = (description: string) => ({ type: 'string', description });

export const THREAD_TOOL_SPECS: ToolSpec[] = [
  {
    name: 'list_skills',
    description: 'List the skills this workspace can run: slug, name, description, runtime and price in Ds per run.',
    inputSchema: { type: 'object', properties: {} },
  },
  {
    name: 'start_run',
    description:
      'Start a run of a skill on an input text. The person is asked to approve it first; a denied run is not started. ' +
      'Answers with the execution id at once: the run goes on, and a <notification> arrives in this thread when it ends.',
    inputSchema: {
      type: 'object',
      properties: { skill: str('The skill slug, from list_skills'), input: str("The run's input text") },
      required: ['skill', 'input'],
    },
  },
  {
    name: 'get_execution',
    description: 'Show an execution of this workspace: status, stop reason, cost, output text and the artifacts it wrote.',
    inputSchema: { type: 'object', properties: { executionId: str('The execution id') }, required: ['executionId'] },
  },
  {
    name: 'list_artifacts',
    description: 'List the artifacts (files) runs of this workspace wrote, newest first.',
    inputSchema: {
      type: 'object',
      properties: {
        limit: { type: 'integer', description: `How many, 1 to ${ARTIFACT_PAGE.max} (default ${ARTIFACT_PAGE.default})` },
        offset: { type: 'integer', description: 'How many to skip (default 0)' },
      },
    },
  },
  {
    name: 'read_artifact',
    description: `Read an artifact: its details and its main file's text (cut past ${TEXT_MAX} characters).`,
    inputSchema: { type: 'object', properties: { artifactId: str('The artifact id') }, required: ['artifactId'] },
  },
];

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function cutNoted(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n[…cut: ${text.length - max} more characters]` : text;
}

function ok(value: Record<string, unknown>, summary: string): ThreadToolOutcome {
  return {
    output: cutNoted(JSON.stringify(value), OUTPUT_MAX),
    isError: false,
    status: 'ok',
    summary: cut(summary, SUMMARY_MAX),
  };
}

function failed(message: string): ThreadToolOutcome {
  return { output: message, isError: true, status: 'error', summary: cut(message, SUMMARY_MAX) };
}

/** A required text argument; the model is told plainly when it left one out. */
function textArg(input: Record<string, unknown>, name: string): string {
  const value = input[name];
  if (typeof value !== 'string' || value.trim() === '') throw new ToolInputError(`${name} must be a non-empty string`);
  return value;
}

function intArg(input: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
  const value = input[name] ?? fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new ToolInputError(`${name} must be an integer from ${min} to ${max}`);
  }
  return value;
}

class ToolInputError extends Error {}

async function listSkills(tc: ThreadToolContext): Promise<ThreadToolOutcome> {
  const skills = await workspaceSkills(tc.ctx, tc.caller.workspaceId);
  const items = skills.map((skill) => ({
    slug: skill.slug,
    name: skill.name,
    description: cut(skill.description, 300),
    runtime: skill.runtime,
    price: skill.price,
  }));
  return ok({ skills: items }, `${items.length} skills`);
}

/**
 * Asks the person, then creates and starts the run with the rules REST applies (input size,
 * credits, one run per workspace, runs per user and server, the execution-start limit).
 * The thread's claim on the run is stored before it starts, so even a run that ends at
 * once has its end told to the thread; a start refused after that (a run already going in
 * the workspace, say) leaves an idle execution, as REST's create-then-start does.
 */
async function startSkillRun(tc: ThreadToolContext, input: Record<string, unknown>): Promise<ThreadToolOutcome> {
  const { ctx, caller, thread } = tc;
  const slug = textArg(input, 'skill');
  const text = textArg(input, 'input');
  const skill = await findSkill(ctx, caller.workspaceId, slug);
  if (!skill) return failed(`No skill with slug ${slug} in this workspace: list_skills shows them`);
  requireInputWithinLimit(ctx, text);
  const price = skill.price > 0 ? ` (${skill.price} Ds)` : '';
  const label = cut(`Run ${skill.name}${price}: ${text.replace(/\s+/g, ' ')}`, SUMMARY_MAX);
  const approved = await tc.sink.requestApproval({ tool: 'start_run', label, input: { skill: slug, input: text } }, tc.signal);
  if (!approved) {
    return {
      output: 'The person denied this run: it was not started. Do not ask for it again unless they want it.',
      isError: false,
      status: 'denied',
      summary: cut(`Denied: ${label}`, SUMMARY_MAX),
    };
  }
  // An answer can come long after the question: act as the person stands now, not as then.
  const now = await threadCaller(ctx, thread);
  if (!now) return failed('The person is no longer a member of this workspace: the run was not started');
  await limitCallerExecutionStarts(ctx, now);
  const execution = await createExecution(ctx, now, { skillSlug: skill.slug, input: text, interface: THREAD_INTERFACE });
  await recordThreadRun(ctx.db, {
    execution_id: execution.execution_id,
    thread_row_id: thread.id,
    user_id: thread.userId,
    created_at: ctx.clock.now().toISOString(),
  });
  await startRun(ctx, now, execution.execution_id, text);
  return ok(
    {
      executionId: execution.execution_id,
      skill: skill.slug,
      status: 'working',
      message: 'The run started. A <notification> arrives in this thread when it ends; get_execution shows where it stands.',
    },
    `Started ${skill.slug}: execution ${execution.execution_id}`,
  );
}

async function getExecution(tc: ThreadToolContext, input: Record<string, unknown>): Promise<ThreadToolOutcome> {
  const report = await executionReport(tc.ctx, tc.caller, textArg(input, 'executionId'));
  const { artifacts, output, ...rest } = report;
  return ok(
    {
      ...rest,
      output: cutNoted(output, TEXT_MAX),
      artifacts: artifacts.map((artifact) => ({ id: artifact.id, title: artifact.title, fileType: artifact.fileType })),
    },
    `Execution ${report.executionId}: ${report.status}`,
  );
}

async function listWorkspaceArtifacts(tc: ThreadToolContext, input: Record<string, unknown>): Promise<ThreadToolOutcome> {
  const limit = intArg(input, 'limit', ARTIFACT_PAGE.default, 1, ARTIFACT_PAGE.max);
  const offset = intArg(input, 'offset', 0, 0, 1_000_000);
  const { items, total } = await listArtifacts(tc.ctx, tc.caller, limit, offset);
  const listed = items.map((item) => ({
    id: item.id,
    title: item.title,
    fileType: item.fileType,
    skillSlug: item.skillSlug,
    status: item.status,
    contentSize: item.contentSize,
    createdAt: item.createdAt,
  }));
  return ok({ items: listed, total, limit, offset }, `${listed.length} of ${total} artifacts`);
}

async function readArtifact(tc: ThreadToolContext, input: Record<string, unknown>): Promise<ThreadToolOutcome> {
  const { content, ...view } = await artifactDetail(tc.ctx, tc.caller, textArg(input, 'artifactId'));
  const text = content === '' ? '[no text: the artifact has no main file, or it is not text]' : cutNoted(content, TEXT_MAX);
  const details = {
    id: view.id,
    title: view.title,
    fileType: view.fileType,
    skillSlug: view.skillSlug,
    status: view.status,
    contentSize: view.contentSize,
  };
  return ok({ ...details, content: text }, `Read ${view.title}`);
}

const TOOLS: Record<string, (tc: ThreadToolContext, input: Record<string, unknown>) => Promise<ThreadToolOutcome>> = {
  list_skills: (tc) => listSkills(tc),
  start_run: startSkillRun,
  get_execution: getExecution,
  list_artifacts: listWorkspaceArtifacts,
  read_artifact: readArtifact,
};

/**
 * Runs one tool call. What the domain refuses (not found, no credits, a run already going,
 * a rate limit) and bad arguments are answers the model reads and can act on; anything
 * else is a bug, logged and answered without its message. An abort (the turn stopped while
 * an approval was awaited) is thrown on, for the loop to end the turn.
 */
export async function runThreadTool(
  call: { name: string; input: Record<string, unknown> },
  tc: ThreadToolContext,
): Promise<ThreadToolOutcome> {
  const tool = Object.hasOwn(TOOLS, call.name) ? TOOLS[call.name] : undefined;
  if (!tool) return failed(`There is no tool ${call.name}; the tools are ${Object.keys(TOOLS).join(', ')}`);
  if ('_invalid_json' in call.input) return failed('The tool input was not a JSON object');
  try {
    return await tool(tc, call.input);
  } catch (error) {
    if (tc.signal.aborted) throw tc.signal.reason ?? error;
    if (error instanceof AppError) return failed(`${error.code}: ${error.message}`);
    if (error instanceof ToolInputError) return failed(error.message);
    tc.ctx.log.error({ err: error, tool: call.name }, 'thread tool failed');
    return failed('The tool failed inside the service');
  }
}

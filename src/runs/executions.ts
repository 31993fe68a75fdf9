import { randomUUID } from 'node:crypto';
import { requireCanExecute } from '../billing/charges.js';
import { startNeeds } from '../billing/start-needs.js';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import type { ExecutionStatus } from '../db/tables-runs.js';
import { Conflict, InvalidInput, NotFound, PayloadTooLarge } from '../errors.js';
import { attachRunFiles, checkRunFiles, type FileRef } from '../files/run-files.js';
import type { Caller } from '../ports/callers.js';
import type { SkillManifest } from '../ports/skills.js';
import { invalidate } from '../realtime/control-messages.js';
import { requireTakesFiles } from '../runtime/input-files.js';
import { sha256Hex } from '../secrets.js';
import { inputProblem } from '../skills/input-contract.js';
import { findSkill } from '../skills/workspace-skills.js';
import { decodeFrame, type TextBlock } from './event-codec.js';
import {
  agentMessageFrames,
  type ExecutionRow,
  findByIdempotencyKey,
  findInWorkspace,
  historyPage,
  insertExecution,
  releaseIdempotencyKey,
} from './executions.store.js';

export interface NewExecution {
  skillSlug: string;
  input: string;
  source?: string | undefined;
  interface?: string | undefined;
  idempotencyKey?: string | undefined;
  parentExecutionId?: string | undefined;
  /** Files the execution's runs are given (DESIGN §15). */
  files?: FileRef[] | undefined;
}

const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;

/**
 * How long history shows an execution that never started a run: long enough for the client
 * that made it to open its stream and start it, after which it is an abandoned attempt
 * (refused because another run was going, or a closed tab) and only clutters the list.
 */
export const NEVER_STARTED_LISTED_MS = 15 * 60_000;

/**
 * Refuses an input the skill's declared schema does not take, before anything is stored or
 * charged, in the author's words (`input-invalid`) or the field rules read as sentences.
 */
export function requireInputFits(
  skill: Pick<SkillManifest, 'name' | 'inputSchema' | 'inputInvalid' | 'inputHint'>,
  input: string,
) {
  if (skill.inputSchema === null) return;
  const problem = inputProblem(skill.inputSchema, input);
  if (problem === undefined) return;
  const textOnly = skill.inputSchema.type !== 'object';
  const words = skill.inputInvalid ?? (textOnly && skill.inputHint ? `It takes ${skill.inputHint}` : problem);
  throw new InvalidInput(`${skill.name} cannot run on this input. ${words}`);
}

export function requireInputWithinLimit(ctx: Pick<AppContext, 'config'>, input: string): void {
  if (input.trim() === '') throw new InvalidInput('input must not be empty');
  if (Buffer.byteLength(input, 'utf8') > ctx.config.executions.inputLimitBytes) {
    throw new PayloadTooLarge(`input is larger than ${ctx.config.executions.inputLimitBytes} bytes`);
  }
}

export async function executionOf(ctx: Pick<AppContext, 'db'>, caller: Caller, executionId: string): Promise<ExecutionRow> {
  const execution = await findInWorkspace(ctx.db, caller.workspaceId, executionId);
  if (!execution) throw new NotFound('Execution not found');
  return execution;
}

/**
 * Creates an idle execution. With an Idempotency-Key, the same key and body within 24
 * hours answer with the first execution; the same key with another body is a conflict.
 */
export async function createExecution(ctx: AppContext, caller: Caller, request: NewExecution): Promise<ExecutionRow> {
  const skill = await findSkill(ctx, caller.workspaceId, request.skillSlug);
  if (!skill) throw new NotFound(`No skill with slug ${request.skillSlug}`);
  requireInputWithinLimit(ctx, request.input);
  requireInputFits(skill, request.input);
  const needs = startNeeds(ctx, caller, skill, request.input);
  await requireCanExecute(ctx, caller, needs.price, needs.firstCallHold);
  const files = request.files?.length ? await checkRunFiles(ctx, caller, request.files) : undefined;
  requireTakesFiles(skill, request.files?.length ?? 0);
  const source = request.source ?? 'api';
  const clientInterface = request.interface ?? 'api';
  // Files join the fingerprint only when given, so earlier keys keep their meaning.
  const fingerprinted = [request.skillSlug, request.input, source, clientInterface, ...(files ? [files.refs] : [])];
  const fingerprint = sha256Hex(JSON.stringify(fingerprinted));
  const now = ctx.clock.now();

  if (request.idempotencyKey !== undefined) {
    const earlier = await findByIdempotencyKey(ctx.db, caller.workspaceId, request.idempotencyKey);
    if (earlier && now.getTime() - Date.parse(earlier.created_at) < IDEMPOTENCY_WINDOW_MS) {
      if (earlier.idempotency_fingerprint !== fingerprint) {
        throw new Conflict('This Idempotency-Key was used with a different request');
      }
      return earlier;
    }
    if (earlier) {
      // Past the window the key is free again.
      await releaseIdempotencyKey(ctx.db, earlier.execution_id);
    }
  }
  try {
    const row: Omit<ExecutionRow, 'id'> = {
      execution_id: randomUUID(),
      workspace_id: caller.workspaceId,
      user_id: caller.userId,
      skill_slug: skill.slug,
      skill_name: skill.name,
      status: 'idle',
      source,
      interface: clientInterface,
      input_text: request.input,
      cost: 0,
      parent_execution_id: request.parentExecutionId ?? null,
      last_sequence: 0,
      stop_reason: null,
      idempotency_key: request.idempotencyKey ?? null,
      idempotency_fingerprint: request.idempotencyKey === undefined ? null : fingerprint,
      created_at: now.toISOString(),
      started_at: null,
      completed_at: null,
      owner_node: null,
      owner_attempt: null,
    };
    const created = files
      ? await ctx.db.transaction().execute(async (trx) => {
          const inserted = await insertExecution(trx, row);
          await attachRunFiles(trx, inserted.execution_id, files);
          return inserted;
        })
      : await insertExecution(ctx.db, row);
    invalidate(ctx, caller.workspaceId, ['executions']);
    return created;
  } catch (error) {
    // The same key raced in from a concurrent request: answer as its retry would.
    if (request.idempotencyKey !== undefined && isUniqueViolation(error)) return createExecution(ctx, caller, request);
    throw error;
  }
}

export interface ExecutionStatusView {
  executionId: string;
  status: ExecutionStatus;
  skillSlug: string;
  skillName: string;
  startedAt: string | null;
  outputBlocks: TextBlock[];
}

export async function executionStatus(
  ctx: Pick<AppContext, 'db'>,
  caller: Caller,
  executionId: string,
): Promise<ExecutionStatusView> {
  const execution = await executionOf(ctx, caller, executionId);
  const frames = await agentMessageFrames(ctx.db, executionId);
  const outputBlocks = frames.map(decodeFrame).flatMap((event) => (event.type === 'agent.message' ? event.payload.content : []));
  return {
    executionId,
    status: execution.status,
    skillSlug: execution.skill_slug,
    skillName: execution.skill_name,
    startedAt: execution.started_at,
    outputBlocks,
  };
}

export interface HistoryQuery {
  limit: number;
  offset: number;
  channels?: string | undefined;
  interfaces?: string | undefined;
  /** Checked by the route's schema to be known states. */
  statuses?: string | undefined;
}

function list(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

export async function executionHistory(ctx: Pick<AppContext, 'db' | 'clock'>, caller: Caller, query: HistoryQuery) {
  const rows = await historyPage(ctx.db, {
    workspaceId: caller.workspaceId,
    limit: query.limit,
    offset: query.offset,
    sources: list(query.channels),
    interfaces: list(query.interfaces),
    statuses: list(query.statuses) as ExecutionStatus[],
    neverStartedBeforeIso: new Date(ctx.clock.nowMs() - NEVER_STARTED_LISTED_MS).toISOString(),
  });
  return {
    items: rows.slice(0, query.limit).map((row) => ({
      id: row.id,
      executionId: row.execution_id,
      skillSlug: row.skill_slug,
      skillName: row.skill_name,
      status: row.status,
      cost: row.cost,
      source: row.source,
      interface: row.interface,
      inputText: row.input_text,
      startedAt: row.started_at,
      completedAt: row.completed_at,
    })),
    hasMore: rows.length > query.limit,
    offset: query.offset,
    limit: query.limit,
  };
}

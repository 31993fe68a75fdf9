import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { BUILTIN_SKILLS_DIR } from '../../src/paths.js';
import type { StoredThreadRecord, ThreadRecord, ThreadRef, ThreadSink } from '../../src/ports/thread-records.js';
import { findExecution } from '../../src/runs/executions.store.js';
import { loadSkillRegistry } from '../../src/skills/registry.js';
import { type FakeAnthropic, startFakeAnthropic } from '../fakes/anthropic.js';
import { type FakeOpenAI, startFakeOpenAI } from '../fakes/openai.js';
import { agentEnv } from '../helpers/agent.js';
import { withDomain } from '../helpers/domain.js';
import type { UserWithWorkspace } from '../helpers/rows.js';

type ApprovalRequest = Parameters<ThreadSink['requestApproval']>[0];

/**
 * A thread's sink in memory: records appended in order with their sequences, and approval
 * requests answered by the test's `decide` (which may wait, e.g. until the turn is aborted).
 */
export class MemorySink implements ThreadSink {
  readonly stored: StoredThreadRecord[] = [];
  readonly approvals: ApprovalRequest[] = [];

  constructor(private readonly decide: (request: ApprovalRequest, signal: AbortSignal) => Promise<boolean> = async () => true) {}

  get records(): ThreadRecord[] {
    return this.stored.map((stored) => stored.record);
  }

  of<T extends ThreadRecord['type']>(type: T): Extract<ThreadRecord, { type: T }>[] {
    return this.records.filter((record): record is Extract<ThreadRecord, { type: T }> => record.type === type);
  }

  async append(records: ThreadRecord[]): Promise<StoredThreadRecord[]> {
    const added = records.map((record, index) => ({
      sequence: this.stored.length + index + 1,
      id: randomUUID(),
      createdAt: new Date().toISOString(),
      record,
    }));
    this.stored.push(...added);
    return added;
  }

  async requestApproval(request: ApprovalRequest, signal: AbortSignal): Promise<boolean> {
    this.approvals.push(request);
    await this.append([{ type: 'tool.approval_request', approvalId: randomUUID(), ...request }]);
    signal.throwIfAborted();
    return this.decide(request, signal);
  }
}

/** A thread's history from records, as the plumbing hands it to a turn. */
export function historyOf(...records: ThreadRecord[]): StoredThreadRecord[] {
  return records.map((record, index) => ({
    sequence: index + 1,
    id: randomUUID(),
    createdAt: '2026-01-01T00:00:00.000Z',
    record,
  }));
}

export const said = (text: string): ThreadRecord => ({ type: 'user.message', messageId: randomUUID(), text });

/** A thread row of `user`'s (for the thread_runs foreign key) and its ref. */
export async function aThread(ctx: AppContext, user: UserWithWorkspace, agentId = 'assistant', workspaceId?: string) {
  const ref: ThreadRef = {
    id: randomUUID(),
    workspaceId: workspaceId ?? user.workspaceId,
    agentId,
    threadId: `t-${randomUUID().slice(0, 8)}`,
    userId: user.id,
  };
  await ctx.db
    .insertInto('agent_threads')
    .values({
      id: ref.id,
      workspace_id: ref.workspaceId,
      agent_id: agentId,
      thread_id: ref.threadId,
      last_sequence: 0,
      created_at: '2026-01-01T00:00:00.000Z',
    })
    .execute();
  return ref;
}

/** Waits for an execution's run to end (the ticker takes a few ms a tick). */
export async function runEnded(ctx: AppContext, executionId: string) {
  await expect
    .poll(async () => (await findExecution(ctx.db, executionId))?.status, { timeout: 15_000 })
    .toMatch(/completed|failed/);
  return findExecution(ctx.db, executionId);
}

/** Sums a user's ledger, which their balance must always equal. */
export async function ledgerOf(ctx: AppContext, userId: string) {
  const rows = await ctx.db.selectFrom('transactions').selectAll().where('user_id', '=', userId).orderBy('id').execute();
  const user = await ctx.db.selectFrom('users').select('balance').where('id', '=', userId).executeTakeFirstOrThrow();
  return { rows, balance: user.balance, sum: rows.reduce((total, row) => total + row.amount, 0) };
}

/**
 * The domain tier with the fake vendors behind the house keys (every token 1 Ds), and
 * `agentCtx`: the file's context with the server's skills and the test skills loaded.
 */
export function withThreadAgent() {
  return (
    withDomain()
      // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
      .extend('anthropic', { scope: 'file' }, async ({}, { onCleanup }): Promise<FakeAnthropic> => {
        const fake = await startFakeAnthropic();
        onCleanup(() => fake.close());
        return fake;
      })
      // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from this pattern.
      .extend('openai', { scope: 'file' }, async ({}, { onCleanup }): Promise<FakeOpenAI> => {
        const fake = await startFakeOpenAI();
        onCleanup(() => fake.close());
        return fake;
      })
      .extend('domainSettings', { scope: 'file' }, ({ anthropic, openai }) => ({
        env: agentEnv({ anthropic: anthropic.url, openai: openai.url }),
      }))
      .extend('agentCtx', { scope: 'file' }, async ({ ctx }): Promise<AppContext> => {
        const { registry } = await loadSkillRegistry({ builtIn: BUILTIN_SKILLS_DIR, extra: ctx.config.skillsDir });
        return { ...ctx, skills: registry };
      })
  );
}

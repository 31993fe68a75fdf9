import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { AppContext } from '../../src/context.js';
import type { StoredThreadRecord } from '../../src/ports/thread-records.js';
import { recordEvents } from '../../src/runs/events.js';
import { decideApproval } from '../../src/threads/thread-approvals.js';
import { decodeThreadFrame } from '../../src/threads/thread-frames.js';
import { sendThreadMessage } from '../../src/threads/thread-messages.js';
import { notifyThreadOfRunEnd } from '../../src/threads/thread-notifications.js';
import { recordThreadRun } from '../../src/threads/thread-runs.store.js';
import { type TurnRunner, threadTurnsSettled, useTurnRunner } from '../../src/threads/thread-turns.js';
import { threadFrames } from '../../src/threads/threads.store.js';
import { withDomain } from '../helpers/domain.js';
import { anExecution, aUser, callerFor, type UserWithWorkspace } from '../helpers/rows.js';

const it = withDomain();

async function recordsOf(ctx: AppContext, threadId: string) {
  const thread = await ctx.db
    .selectFrom('agent_threads')
    .select('id')
    .where('thread_id', '=', threadId)
    .executeTakeFirstOrThrow();
  return (await threadFrames(ctx.db, thread.id)).map((frame) => decodeThreadFrame(frame));
}

const send = (ctx: AppContext, user: UserWithWorkspace, threadId: string, message: string) =>
  sendThreadMessage(ctx, callerFor(user), 'assistant', { resourceId: user.workspaceId, threadId, message });

/** Another node of the same cluster: its own turns and node id, the same database and channels. */
const otherNode = (ctx: AppContext): AppContext => ({ ...ctx, config: { ...ctx.config, nodeId: `node-${randomUUID()}` } });

/** A turn that answers after a pause, counting how many run at once across every context it is given to. */
function countingTurns() {
  const seen = { running: 0, most: 0, turns: 0, histories: [] as number[] };
  const runTurn: TurnRunner = async (_ctx, _thread, history: StoredThreadRecord[], sink) => {
    seen.running += 1;
    seen.most = Math.max(seen.most, seen.running);
    seen.turns += 1;
    seen.histories.push(history.length);
    await new Promise((resolve) => setTimeout(resolve, 5));
    await sink.append([{ type: 'agent.message', messageId: randomUUID(), text: 'ok' }]);
    seen.running -= 1;
    await sink.append([{ type: 'agent.turn_end', messageId: randomUUID(), stopReason: 'end_turn' }]);
  };
  return { seen, runTurn };
}

describe('agent threads in the store', () => {
  it('makes one thread of concurrent first messages, with gap-free sequences, 20 times over', async ({ ctx, db }) => {
    useTurnRunner(ctx, countingTurns().runTurn);
    const user = await aUser(db);
    for (let round = 0; round < 20; round++) {
      const threadId = `race-${round}`;
      const sent = await Promise.all(Array.from({ length: 8 }, (_, i) => send(ctx, user, threadId, `m${i}`)));
      expect(new Set(sent.map((one) => one.threadId))).toEqual(new Set([threadId]));
      const rows = await db.selectFrom('agent_threads').selectAll().where('thread_id', '=', threadId).execute();
      expect(rows).toHaveLength(1);
      const messages = (await recordsOf(ctx, threadId)).filter((one) => one.record.type === 'user.message');
      expect(messages).toHaveLength(8);
      // A person has THREAD_TURNS_PER_USER turns under way at most: each round's ends first.
      await threadTurnsSettled(ctx);
    }
    const records = await recordsOf(ctx, 'race-0');
    expect(records.map((one) => one.sequence)).toEqual(records.map((_, i) => i + 1));
  });

  it('runs one turn at a time per thread across two nodes, and answers every message', async ({ ctx, db }) => {
    const user = await aUser(db);
    const other = otherNode(ctx);
    const { seen, runTurn } = countingTurns();
    useTurnRunner(ctx, runTurn);
    useTurnRunner(other, runTurn);
    const threadId = `busy-${randomUUID()}`;
    for (let i = 0; i < 6; i++) await send(i % 2 === 0 ? ctx : other, user, threadId, `m${i}`);
    await Promise.all([threadTurnsSettled(ctx), threadTurnsSettled(other)]);
    expect(seen.most).toBe(1);
    const records = await recordsOf(ctx, threadId);
    const lastMessage = records.filter((one) => one.record.type === 'user.message').at(-1)?.sequence ?? 0;
    const ends = records.filter((one) => one.record.type === 'agent.turn_end');
    expect(ends.length).toBeGreaterThanOrEqual(1);
    expect(ends.length).toBe(seen.turns);
    expect(ends.at(-1)?.through).toBeGreaterThanOrEqual(lastMessage);
    expect(records.at(-1)?.record.type).toBe('agent.turn_end');
    // The lease is let go once the thread is answered.
    expect(await db.selectFrom('cluster_leases').selectAll().where('name', 'like', 'thread-turn:%').execute()).toEqual([]);
  });

  it('ends a turn whose agent threw, so the thread is not left unanswered', async ({ ctx, db }) => {
    const user = await aUser(db);
    const own = otherNode(ctx);
    useTurnRunner(own, async () => {
      throw new Error('boom');
    });
    const threadId = `throws-${randomUUID()}`;
    await send(own, user, threadId, 'hello');
    await threadTurnsSettled(own);
    const last = (await recordsOf(ctx, threadId)).at(-1);
    expect(last?.record).toMatchObject({ type: 'agent.turn_end', stopReason: 'error' });
    expect(last?.through).toBe(1);
  });

  it('spends the claims a turn answered before its end is announced, and keeps one made while it ran', async ({
    ctx,
    db,
    domain,
  }) => {
    const user = await aUser(db);
    const own = otherNode(ctx);
    const claimsHeld = async () =>
      (await db.selectFrom('thread_turn_claims').select('thread_id').where('user_id', '=', user.id).execute()).length;
    // What the person holds the moment each turn's end has been stored and announced.
    const heldAtEnd: number[] = [];
    let turns = 0;
    useTurnRunner(own, async (_ctx, thread, _history, sink) => {
      turns += 1;
      if (thread.threadId.startsWith('more-') && turns === 2) {
        domain.clock.advance(1000);
        await send(own, user, thread.threadId, 'and another thing');
      }
      await sink.append([{ type: 'agent.turn_end', messageId: randomUUID(), stopReason: 'end_turn' }]);
      heldAtEnd.push(await claimsHeld());
    });
    await send(own, user, `once-${randomUUID()}`, 'hello');
    await threadTurnsSettled(own);
    // Seeing the end, the person may ask again at once: the turn's claim went before it.
    expect(heldAtEnd).toEqual([0]);

    await send(own, user, `more-${randomUUID()}`, 'hello');
    await threadTurnsSettled(own);
    // A message sent during the turn keeps its claim past that turn's end, until its own turn ends.
    expect(heldAtEnd).toEqual([0, 1, 0]);
    expect(await claimsHeld()).toBe(0);
  });

  it('wakes a turn waiting on an approval answered on another node, or found answered when it reads again', async ({
    ctx,
    db,
    domain,
  }) => {
    const user = await aUser(db);
    const own = otherNode(ctx);
    const answers: boolean[] = [];
    useTurnRunner(own, async (_ctx, _thread, _history, sink, signal) => {
      answers.push(await sink.requestApproval({ tool: 'start_run', label: 'Run it', input: { skill: 'ticker' } }, signal));
      answers.push(await sink.requestApproval({ tool: 'start_run', label: 'Again', input: {} }, signal));
      await sink.append([{ type: 'agent.turn_end', messageId: randomUUID(), stopReason: 'end_turn' }]);
    });
    const threadId = `approve-${randomUUID()}`;
    await send(own, user, threadId, 'go');
    const pending = async () => {
      for (;;) {
        const row = await db.selectFrom('thread_approvals').selectAll().where('status', '=', 'pending').executeTakeFirst();
        const announced = (await recordsOf(ctx, threadId)).some(
          (one) => one.record.type === 'tool.approval_request' && one.record.approvalId === row?.id,
        );
        if (row && announced) return row.id;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    // Answered through another node: the announcement wakes the turn.
    const first = await pending();
    await decideApproval(otherNode(ctx), callerFor(user), { agentId: 'assistant', threadId, approvalId: first }, true);
    // Answered in the row alone (its announcement lost): the turn finds it when it reads again.
    const second = await pending();
    await db.updateTable('thread_approvals').set({ status: 'denied' }).where('id', '=', second).execute();
    domain.clock.advance(10_000);
    await threadTurnsSettled(own);
    expect(answers).toEqual([true, false]);
  });

  it("tells a thread of its run's end once the run is over, and nothing of runs no thread started", async ({ ctx, db }) => {
    const user = await aUser(db);
    const own = otherNode(ctx);
    const { runTurn, seen } = countingTurns();
    useTurnRunner(own, runTurn);
    const threadId = `runs-${randomUUID()}`;
    await send(own, user, threadId, 'start something');
    await threadTurnsSettled(own);
    const thread = await db.selectFrom('agent_threads').select('id').where('thread_id', '=', threadId).executeTakeFirstOrThrow();

    const loose = await anExecution(db, { user, status: 'completed' });
    await notifyThreadOfRunEnd(own, loose.execution_id);
    const paused = await anExecution(db, { user, status: 'idle' });
    await recordThreadRun(db, {
      execution_id: paused.execution_id,
      thread_row_id: thread.id,
      user_id: user.id,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    await notifyThreadOfRunEnd(own, paused.execution_id);
    expect((await recordsOf(ctx, threadId)).filter((one) => one.record.type === 'notification')).toEqual([]);

    const done = await anExecution(db, { user, status: 'completed', skill: 'ticker' });
    await recordEvents(ctx, done.execution_id, [
      {
        type: 'execution.result',
        payload: { summary: 'Counted to 3', cost: 0, tokenUsage: { input_tokens: 0, output_tokens: 0 } },
      },
    ]);
    await recordThreadRun(db, {
      execution_id: done.execution_id,
      thread_row_id: thread.id,
      user_id: user.id,
      created_at: '2026-01-01T00:00:00.000Z',
    });
    await notifyThreadOfRunEnd(own, done.execution_id);
    await threadTurnsSettled(own);
    const records = await recordsOf(ctx, threadId);
    const notification = records.find((one) => one.record.type === 'notification');
    expect(notification?.record).toEqual({
      type: 'notification',
      text: `<notification>Run ${done.execution_id} of ticker completed: Counted to 3</notification>`,
      executionId: done.execution_id,
    });
    expect(seen.turns).toBe(2);
    expect(records.at(-1)?.through).toBe(notification?.sequence);
  });
});

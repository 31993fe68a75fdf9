import { describe, expect } from 'vitest';
import { holdCredits } from '../../src/billing/model-holds.js';
import { createAppContext } from '../../src/compose.js';
import type { AppContext } from '../../src/context.js';
import { CLUSTER_TICK_MS, clusterTick } from '../../src/distributed/cluster.js';
import { acquireLease, recordHeartbeat } from '../../src/distributed/cluster.store.js';
import type { RunQueue } from '../../src/ports/runs.js';
import { takeQueuedRun } from '../../src/runs/executions.store.js';
import { withDomain } from '../helpers/domain.js';
import { anExecution, aUser } from '../helpers/rows.js';

const it = withDomain({ NODE_ID: 'node-a', NODE_TIMEOUT_SECONDS: '30' });

/** Another node (node B unless named): the same database and clock as node A (the fixture's), under another name. */
function nodeB(ctx: AppContext, nodeId = 'node-b'): AppContext {
  return createAppContext({
    config: { ...ctx.config, nodeId },
    database: { db: ctx.db, dialect: ctx.dialect, statementsSent: () => 0, commitsSent: () => 0, close: async () => undefined },
    clock: ctx.clock,
    rateLimits: ctx.rateLimits,
  });
}

const noSweeps = async () => undefined;

async function statusOf(ctx: AppContext, executionId: string) {
  return ctx.db
    .selectFrom('executions')
    .select(['status', 'stop_reason'])
    .where('execution_id', '=', executionId)
    .executeTakeFirstOrThrow();
}

describe('the sweeping lease', () => {
  it('is held by one node until it expires, and renewed by its holder', async ({ ctx, domain }) => {
    const name = `lease-${Math.random()}`;
    const at = (ms: number) => new Date(domain.clock.nowMs() + ms).toISOString();
    expect(await acquireLease(ctx.db, { name, holder: 'a', nowIso: at(0), expiresIso: at(10_000) })).toBe(true);
    expect(await acquireLease(ctx.db, { name, holder: 'b', nowIso: at(5_000), expiresIso: at(15_000) })).toBe(false);
    expect(await acquireLease(ctx.db, { name, holder: 'a', nowIso: at(5_000), expiresIso: at(15_000) })).toBe(true);
    expect(await acquireLease(ctx.db, { name, holder: 'b', nowIso: at(14_000), expiresIso: at(24_000) })).toBe(false);
    expect(await acquireLease(ctx.db, { name, holder: 'b', nowIso: at(16_000), expiresIso: at(26_000) })).toBe(true);
    expect(await acquireLease(ctx.db, { name, holder: 'a', nowIso: at(17_000), expiresIso: at(27_000) })).toBe(false);
  });

  it('goes to exactly one of several nodes asking at once, every time', async ({ ctx, domain }) => {
    for (let round = 0; round < 20; round++) {
      const name = `race-${round}`;
      const nowIso = domain.clock.now().toISOString();
      const expiresIso = new Date(domain.clock.nowMs() + 10_000).toISOString();
      const won = await Promise.all(
        ['a', 'b', 'c', 'd'].map((holder) => acquireLease(ctx.db, { name, holder, nowIso, expiresIso })),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
    }
  });
});

describe('a cluster tick', () => {
  it("ends the runs of a node silent past the timeout, with their closing events, and no one else's", async ({ ctx, domain }) => {
    const b = nodeB(ctx);
    // Every node beats once before it serves anything (app.ts), so before it owns a run.
    for (const node of ['node-a', 'node-b', 'node-c']) await recordHeartbeat(ctx.db, node, domain.clock.now().toISOString());
    const ofSilentNode = await anExecution(ctx.db, { status: 'working', ownerNode: 'node-c' });
    const ofUnknownNode = await anExecution(ctx.db, { status: 'working', ownerNode: 'node-gone' });
    const ofLiveNode = await anExecution(ctx.db, { status: 'working', ownerNode: 'node-b' });
    const own = await anExecution(ctx.db, { status: 'working', ownerNode: 'node-a' });
    const unowned = await anExecution(ctx.db, { status: 'working' });

    // Nodes A and B beat at 20 s and at 35 s; node C's only beat was at 0, past the 30 s timeout.
    for (const step of [20_000, CLUSTER_TICK_MS * 3]) {
      domain.clock.advance(step);
      const outcomes = [await clusterTick(ctx, noSweeps, new Set()), await clusterTick(b, noSweeps, new Set())];
      expect(outcomes.filter((outcome) => outcome !== null)).toHaveLength(1);
    }

    expect(await statusOf(ctx, ofSilentNode.execution_id)).toEqual({ status: 'failed', stop_reason: 'error' });
    expect(await statusOf(ctx, ofUnknownNode.execution_id)).toEqual({ status: 'failed', stop_reason: 'error' });
    for (const kept of [ofLiveNode, own, unowned]) expect((await statusOf(ctx, kept.execution_id)).status).toBe('working');

    const closing = await ctx.db
      .selectFrom('execution_events')
      .select('type')
      .where('execution_id', '=', ofSilentNode.execution_id)
      .orderBy('sequence')
      .execute();
    expect(closing.map((event) => event.type)).toEqual(expect.arrayContaining(['agent.info', 'session.status_idle']));
    expect(closing.at(-1)?.type).toBe('session.status_idle');
  });

  it("lets go of the credits held by nodes silent past the timeout, and no one else's", async ({ ctx, domain }) => {
    const payer = await aUser(ctx.db, { credits: 1000 });
    for (const node of ['node-a', 'node-b', 'node-c']) await recordHeartbeat(ctx.db, node, domain.clock.now().toISOString());
    for (const node of ['node-a', 'node-b', 'node-c', 'node-gone']) {
      expect(await holdCredits(nodeB(ctx, node), payer.id, `turn of ${node}`, 100)).toBeDefined();
    }
    const b = nodeB(ctx);
    // Nodes A and B beat at 20 s and at 35 s; node C's only beat was at 0; node-gone never beat.
    for (const step of [20_000, CLUSTER_TICK_MS * 3]) {
      domain.clock.advance(step);
      await Promise.all([clusterTick(ctx, noSweeps, new Set()), clusterTick(b, noSweeps, new Set())]);
    }
    const left = await ctx.db.selectFrom('credit_holds').select('node_id').where('user_id', '=', payer.id).execute();
    expect(left.map((hold) => hold.node_id).sort()).toEqual(['node-a', 'node-b']);
    const { held } = await ctx.db.selectFrom('users').select('held').where('id', '=', payer.id).executeTakeFirstOrThrow();
    expect(held).toBe(200);
  });

  it('sweeps only on the node that holds the lease', async ({ ctx }) => {
    const b = nodeB(ctx);
    let sweeps = 0;
    const count = async () => {
      sweeps += 1;
    };
    const [first, second] = [await clusterTick(ctx, count, new Set()), await clusterTick(b, count, new Set())];
    expect([first, second].filter((outcome) => outcome !== null)).toHaveLength(1);
    expect(sweeps).toBe(1);
  });
});

describe('runs waiting in the queue', () => {
  it('are ended once claimed longer ago than the node timeout with no job left for them at two ticks in a row; queued and recent ones wait', async ({
    ctx,
    domain,
  }) => {
    const jobs = new Set<string>();
    const runQueue: RunQueue = {
      enqueue: async (run) => void jobs.add(run.executionId),
      queuedExecutions: async () => new Set(jobs),
      close: async () => undefined,
    };
    const withQueue: AppContext = { ...ctx, runQueue };
    const lost = await anExecution(ctx.db, { status: 'working' });
    const queued = await anExecution(ctx.db, { status: 'working' });
    jobs.add(queued.execution_id);
    domain.clock.advance(60_000);
    const recent = await anExecution(ctx.db, { status: 'working' });
    await ctx.db
      .updateTable('executions')
      .set({ started_at: domain.clock.now().toISOString() })
      .where('execution_id', '=', recent.execution_id)
      .execute();

    // A hand-on lets go of a run just before it queues it again: one tick finding it unqueued ends nothing.
    const unqueuedBefore = new Set<string>();
    await clusterTick(withQueue, noSweeps, unqueuedBefore);
    expect((await statusOf(ctx, lost.execution_id)).status).toBe('working');
    // Earlier tests of the file left unowned runs of their own: they count as lost too.
    expect((await clusterTick(withQueue, noSweeps, unqueuedBefore))?.lostRuns).toBeGreaterThanOrEqual(1);
    expect(await statusOf(ctx, lost.execution_id)).toEqual({ status: 'failed', stop_reason: 'error' });
    for (const kept of [queued, recent]) expect((await statusOf(ctx, kept.execution_id)).status).toBe('working');
    // Never started, so never charged: its closing events say what happened.
    const info = await ctx.db
      .selectFrom('execution_events')
      .select('frame')
      .where('execution_id', '=', lost.execution_id)
      .where('type', '=', 'agent.info')
      .executeTakeFirstOrThrow();
    expect(info.frame).toContain('lost from the queue');
  });

  it('go to exactly one of several workers taking them at once, every time; a stopped one to none', async ({ ctx }) => {
    for (let round = 0; round < 20; round++) {
      const run = await anExecution(ctx.db, { status: 'working' });
      const taken = await Promise.all(
        ['w1', 'w2', 'w3', 'w4'].map((node) => takeQueuedRun(ctx.db, run.execution_id, { node, attempt: `${node}-1` })),
      );
      expect(taken.filter(Boolean)).toHaveLength(1);
    }
    const stopped = await anExecution(ctx.db, { status: 'idle' });
    expect(await takeQueuedRun(ctx.db, stopped.execution_id, { node: 'w1', attempt: 'w1-1' })).toBe(false);
  });
});

import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect } from 'vitest';
import { createAppContext } from '../../src/compose.js';
import type { AppContext } from '../../src/context.js';
import { bullRunQueue, startRunWorker } from '../../src/distributed/bull-run-queue.js';
import { clusterTick } from '../../src/distributed/cluster.js';
import { BUILTIN_SKILLS_DIR } from '../../src/paths.js';
import type { QueuedRun, RunQueue } from '../../src/ports/runs.js';
import { findExecution } from '../../src/runs/executions.store.js';
import { startRun } from '../../src/runs/run-control.js';
import { loadSkillRegistry, type SkillRegistry } from '../../src/skills/registry.js';
import { withDomain } from '../helpers/domain.js';
import { redisReachable, TEST_REDIS_URL } from '../helpers/redis.js';
import { anExecution, aUser, callerFor } from '../helpers/rows.js';

/**
 * One contract for where a claimed run goes (executions/run-queue.ts), kept by both
 * placements: BullMQ's queue with its workers, and a single node with no queue, which runs
 * a run in the process that claimed it. There is no in-process RunQueue: on a single node
 * `ctx.runQueue` is absent, so that placement has nothing waiting to report and hands
 * nothing over, and the shared assertions below hold for it with an empty queue.
 */

const it = withDomain({ NODE_ID: 'claimer' }).extend('skills', { scope: 'file' }, async (): Promise<SkillRegistry> => {
  const { registry, problems } = await loadSkillRegistry({ builtIn: BUILTIN_SKILLS_DIR });
  if (problems.length > 0) throw new Error(`skills that do not load: ${problems.join('; ')}`);
  return registry;
});

const redisUp = await redisReachable('the BullMQ half of the run queue contract');

interface Placement {
  /** The node runs are claimed on: run control's startRun goes through it. */
  claimer: AppContext;
  /** The executions with a run waiting for a worker or held by one (RunQueue.queuedExecutions). */
  reported(): Promise<Set<string>>;
  /** Hands a claimed run over again, as a repeated or retried enqueue would. */
  handAgain(run: QueuedRun): Promise<void>;
  /** Lets `count` nodes take runs; resolves to the nodes a run may end up on. */
  startWorkers(count: number): Promise<string[]>;
  /** Closes what the placement opened: its queue, its workers, its runs. */
  close(): Promise<void>;
  /** What is still open after close: connections, runs in progress. */
  leftOpen(): Promise<string[]>;
}

type Opener = (ctx: AppContext, skills: SkillRegistry) => Promise<Placement>;

const opened: Placement[] = [];
afterEach(async () => {
  // A test that failed before closing its placement leaves nothing running into the next.
  await Promise.all(opened.splice(0).map((placement) => placement.close()));
});

const silent = pino({ level: 'silent' });

function runsInProgress(contexts: AppContext[]): string[] {
  return contexts.flatMap((ctx) => (ctx.runs.size > 0 ? [`${ctx.runs.size} run(s) in progress on ${ctx.config.nodeId}`] : []));
}

/** A single node: no queue; the process that claims a run runs it, at once. */
const inProcess: Opener = async (ctx, skills) => {
  const claimer: AppContext = { ...ctx, skills };
  return {
    claimer,
    reported: async () => new Set(),
    // With no queue nothing hands a run over: the claiming process already runs it.
    handAgain: async () => undefined,
    startWorkers: async () => [claimer.config.nodeId],
    close: () => claimer.runs.stopAll(),
    leftOpen: async () => runsInProgress([claimer]),
  };
};

async function withAdmin<T>(use: (admin: Redis) => Promise<T>): Promise<T> {
  const admin = new Redis(TEST_REDIS_URL);
  try {
    return await use(admin);
  } finally {
    admin.disconnect();
  }
}

/** BullMQ on the test Redis, under a prefix of its own; workers are further nodes on the same database. */
const bullmq: Opener = async (ctx, skills) => {
  const prefix = `skillet-test:${randomUUID()}:`;
  const runQueue: RunQueue = bullRunQueue(TEST_REDIS_URL, prefix, silent);
  const claimer: AppContext = { ...ctx, skills, runQueue };
  const workers: { ctx: AppContext; worker: ReturnType<typeof startRunWorker> }[] = [];
  let closing: Promise<void> | undefined;
  return {
    claimer,
    reported: () => runQueue.queuedExecutions(),
    async handAgain(run) {
      // The same job again (BullMQ keeps one per id), and a second job for the same run.
      await runQueue.enqueue(run);
      await runQueue.enqueue({ ...run, startSequence: run.startSequence + 1000 });
    },
    async startWorkers(count) {
      for (let n = 0; n < count; n++) {
        const workerCtx = createAppContext({
          config: { ...ctx.config, nodeId: `worker-${workers.length + 1}` },
          database: {
            db: ctx.db,
            dialect: ctx.dialect,
            statementsSent: () => 0,
            commitsSent: () => 0,
            close: async () => undefined,
          },
          clock: ctx.clock,
          rateLimits: ctx.rateLimits,
          skills,
        });
        workers.push({ ctx: workerCtx, worker: startRunWorker(workerCtx, TEST_REDIS_URL, prefix) });
      }
      return workers.map((worker) => worker.ctx.config.nodeId);
    },
    close() {
      closing ??= (async () => {
        await Promise.all(workers.map(({ worker }) => worker.close()));
        await runQueue.close();
        await withAdmin(async (admin) => {
          const keys = await admin.keys(`${prefix}*`);
          if (keys.length > 0) await admin.del(...keys);
        });
      })();
      return closing;
    },
    async leftOpen() {
      const clients = await withAdmin(async (admin) =>
        String(await admin.client('LIST'))
          .split('\n')
          .flatMap((line) => line.match(/ name=(\S+)/)?.[1] ?? [])
          .filter((name) => name.startsWith(prefix)),
      );
      return [...clients.map((name) => `Redis connection ${name}`), ...runsInProgress(workers.map((worker) => worker.ctx))];
    },
  };
};

const placements: [string, Opener][] = [
  ['in process (no queue)', inProcess],
  ...(redisUp ? [['BullMQ', bullmq] as [string, Opener]] : []),
];

/** The events of one ticker run of two ticks, by type: what a run taken exactly once stores. */
const ONE_RUN_OF_TWO_TICKS = {
  'user.message': 1,
  'session.status_running': 1,
  'agent.message': 2,
  'execution.result': 1,
  'session.status_idle': 1,
};

async function rowOf(ctx: AppContext, executionId: string) {
  const row = await findExecution(ctx.db, executionId);
  if (!row) throw new Error(`no execution ${executionId}`);
  return row;
}

async function typeCounts(ctx: AppContext, executionId: string): Promise<Record<string, number>> {
  const rows = await ctx.db.selectFrom('execution_events').select('type').where('execution_id', '=', executionId).execute();
  const counts: Record<string, number> = {};
  for (const { type } of rows) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

/** Waits (real time: a skill process runs) until the execution is no longer working. */
async function endOf(ctx: AppContext, executionId: string) {
  await expect.poll(async () => (await rowOf(ctx, executionId)).status, { timeout: 20_000 }).not.toBe('working');
  return rowOf(ctx, executionId);
}

/** An idle ticker execution of a new user, claimed through run control; the run as a queue would carry it. */
async function claimTicker(placement: Placement, ctx: AppContext, input: string): Promise<QueuedRun> {
  const user = await aUser(ctx.db);
  const execution = await anExecution(ctx.db, { user, skill: 'ticker' });
  const [first] = await startRun(placement.claimer, callerFor(user), execution.execution_id, input);
  return {
    executionId: execution.execution_id,
    workspaceId: execution.workspace_id,
    skillSlug: 'ticker',
    text: input,
    startSequence: first?.sequence ?? 0,
  };
}

describe.each(placements)('where a claimed run goes: %s', (_name, open) => {
  it('reports a claimed run until a node takes it, is not taken for lost meanwhile, and runs it there once', async ({
    ctx,
    domain,
    skills,
  }) => {
    const placement = await open(ctx, skills);
    opened.push(placement);
    const run = await claimTicker(placement, ctx, '2 5');

    // Reported exactly while no node has it: an unowned run nobody reports is swept as lost.
    const claimed = await rowOf(ctx, run.executionId);
    expect((await placement.reported()).has(run.executionId)).toBe(claimed.owner_node === null);
    expect([null, placement.claimer.config.nodeId]).toContain(claimed.owner_node);

    domain.clock.advance(ctx.config.nodeTimeoutMs + 1000);
    await clusterTick(placement.claimer, async () => undefined, new Set());
    const afterSweep = await rowOf(ctx, run.executionId);
    expect(afterSweep.status).not.toBe('failed');
    expect((await placement.reported()).has(run.executionId)).toBe(afterSweep.owner_node === null);

    const nodes = await placement.startWorkers(1);
    const ended = await endOf(ctx, run.executionId);
    expect(ended.status).toBe('completed');
    expect(nodes).toContain(ended.owner_node);
    expect(await typeCounts(ctx, run.executionId)).toEqual(ONE_RUN_OF_TWO_TICKS);
    await expect.poll(async () => (await placement.reported()).has(run.executionId)).toBe(false);

    await placement.close();
    expect(await placement.leftOpen()).toEqual([]);
  });

  it('takes each run once, however many nodes could take it and however often it is handed over', async ({ ctx, skills }) => {
    const placement = await open(ctx, skills);
    opened.push(placement);
    const nodes = await placement.startWorkers(3);
    const runs: QueuedRun[] = [];
    for (let n = 0; n < 4; n++) {
      const run = await claimTicker(placement, ctx, '2 5');
      await placement.handAgain(run);
      runs.push(run);
    }

    for (const run of runs) {
      const ended = await endOf(ctx, run.executionId);
      expect(ended.status).toBe('completed');
      expect(nodes).toContain(ended.owner_node);
      expect(await typeCounts(ctx, run.executionId)).toEqual(ONE_RUN_OF_TWO_TICKS);
    }
    // The extra jobs were taken too, found their run already taken, and left the queue.
    await expect
      .poll(async () => {
        const reported = await placement.reported();
        return runs.filter((run) => reported.has(run.executionId));
      })
      .toEqual([]);

    await placement.close();
    expect(await placement.leftOpen()).toEqual([]);
  });

  it('closes with nothing left open or working, a run in progress included', async ({ ctx, skills }) => {
    const placement = await open(ctx, skills);
    opened.push(placement);
    await placement.startWorkers(1);
    const run = await claimTicker(placement, ctx, '20 20');
    await expect
      .poll(async () => (await typeCounts(ctx, run.executionId))['agent.message'] ?? 0, { timeout: 20_000 })
      .toBeGreaterThan(0);

    await placement.close();
    expect(await placement.leftOpen()).toEqual([]);
    expect((await rowOf(ctx, run.executionId)).status).not.toBe('working');
  });
});

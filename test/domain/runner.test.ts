import { pino } from 'pino';
import { describe, expect } from 'vitest';
import { holdRunPrice } from '../../src/billing/charges.js';
import type { AppContext } from '../../src/context.js';
import { BUILTIN_SKILLS_DIR } from '../../src/paths.js';
import type { RunEndName } from '../../src/ports/run-life.js';
import type { RunTarget } from '../../src/ports/runs.js';
import type { Skill } from '../../src/ports/skills.js';
import { decodeFrame, type ExecutionEvent } from '../../src/runs/event-codec.js';
import { findExecution } from '../../src/runs/executions.store.js';
import { finishRun } from '../../src/runs/run-ending.js';
import { RunLifeBus } from '../../src/runs/run-life.js';
import { launchRun } from '../../src/runs/runner.js';
import { resultWithoutRun } from '../../src/runtime/runtime.js';
import { BUILT_INS_ONLY, detectSandbox } from '../../src/sandbox/sandbox.js';
import { loadSkillRegistry } from '../../src/skills/registry.js';
import { withDomain } from '../helpers/domain.js';
import { anExecution, aUser, type UserWithWorkspace } from '../helpers/rows.js';

/**
 * The domain tier with the server's skills and the test skills loaded, confined as test
 * servers confine them (the test skills are not built in, so they need a sandbox that runs
 * untrusted skills, or none on a machine without bubblewrap).
 */
const it = withDomain().extend('runner', { scope: 'file' }, async ({ ctx }): Promise<AppContext> => {
  const { registry, problems } = await loadSkillRegistry({ builtIn: BUILTIN_SKILLS_DIR, extra: ctx.config.skillsDir });
  if (problems.length > 0) throw new Error(`skills that do not load: ${problems.join('; ')}`);
  return { ...ctx, skills: registry, sandbox: await detectSandbox(ctx.config.executions.sandbox) };
});

const CREDITS = 10;
const PRICE = 2;

function skillOf(ctx: AppContext, slug: string): Skill {
  const skill = ctx.skills.get(slug);
  if (!skill) throw new Error(`no skill ${slug}`);
  return skill;
}

interface Claimed {
  user: UserWithWorkspace;
  target: RunTarget;
}

/**
 * An execution as run control leaves it before it launches a run: working, with the run's
 * price held from its payer's balance when it has one.
 */
async function claimed(ctx: AppContext, price = PRICE): Promise<Claimed> {
  const user = await aUser(ctx.db, { credits: CREDITS });
  const execution = await anExecution(ctx.db, { user, status: 'working' });
  const nowIso = ctx.clock.now().toISOString();
  const held = await ctx.db
    .transaction()
    .execute((trx) => holdRunPrice(trx, { userId: user.id, amount: price }, execution.execution_id, nowIso));
  expect(held).toBe(true);
  return { user, target: { executionId: execution.execution_id, workspaceId: execution.workspace_id } };
}

/** Launches a run and waits until its closing events are stored. */
async function runToEnd(ctx: AppContext, target: RunTarget, skill: Skill, input: string): Promise<void> {
  await launchRun(ctx, target, skill, input);
  const run = ctx.runs.get(target.executionId);
  expect(run).toBeDefined();
  await run?.settled;
}

async function eventsOf(ctx: AppContext, executionId: string): Promise<ExecutionEvent[]> {
  const rows = await ctx.db
    .selectFrom('execution_events')
    .select('frame')
    .where('execution_id', '=', executionId)
    .orderBy('sequence')
    .execute();
  return rows.map((row) => decodeFrame(row.frame));
}

async function rowOf(ctx: AppContext, executionId: string) {
  const row = await findExecution(ctx.db, executionId);
  if (!row) throw new Error(`no execution ${executionId}`);
  return row;
}

async function balanceOf(ctx: AppContext, userId: string): Promise<number> {
  const row = await ctx.db.selectFrom('users').select('balance').where('id', '=', userId).executeTakeFirstOrThrow();
  return row.balance;
}

async function refundsOf(ctx: AppContext, executionId: string): Promise<string[]> {
  const rows = await ctx.db
    .selectFrom('transactions')
    .select('description')
    .where('execution_id', '=', executionId)
    .where('amount', '>', 0)
    .execute();
  return rows.map((row) => row.description);
}

/** The messages of a run's agent.info events, in order. */
function infoOf(events: ExecutionEvent[]): string[] {
  return events.flatMap((event) => (event.type === 'agent.info' ? [event.payload.message] : []));
}

/** Resolves once the run has stored its first agent.message: it is under way, not just spawned. */
function firstMessage(ctx: AppContext, executionId: string): Promise<void> {
  return new Promise((resolve) => {
    const heard = (announced: { type: string }) => {
      if (announced.type !== 'agent.message') return;
      ctx.bus.unsubscribe(executionId, heard);
      resolve();
    };
    ctx.bus.subscribe(executionId, heard);
  });
}

describe('a run that completes', () => {
  it('stores its messages, its result and end_turn, and keeps its held price as its cost', async ({ runner }) => {
    const { user, target } = await claimed(runner);
    await runToEnd(runner, target, skillOf(runner, 'priced-ticker'), '3 1');

    const events = await eventsOf(runner, target.executionId);
    expect(events.map((event) => event.type)).toEqual([
      'agent.message',
      'agent.message',
      'agent.message',
      'execution.result',
      'session.status_idle',
    ]);
    expect(events[2]?.payload).toEqual({ content: [{ type: 'text', text: 'tick 3 of 3' }] });
    expect(events[3]?.payload).toEqual({ summary: '3 ticks', cost: PRICE, tokenUsage: { input_tokens: 0, output_tokens: 0 } });
    expect(events[4]?.payload).toEqual({ stop_reason: { type: 'end_turn' } });
    expect(await rowOf(runner, target.executionId)).toMatchObject({
      status: 'completed',
      stop_reason: 'end_turn',
      completed_at: runner.clock.now().toISOString(),
      cost: PRICE,
      last_sequence: 5,
    });
    expect(await balanceOf(runner, user.id)).toBe(CREDITS - PRICE);
    expect(await refundsOf(runner, target.executionId)).toEqual([]);
    expect(runner.runs.get(target.executionId)).toBeUndefined();
  });

  it('names the artifact its files became in its result', async ({ runner }) => {
    const { target } = await claimed(runner, 0);
    const input = JSON.stringify({ files: [{ path: 'notes.txt', text: 'hello' }] });
    await runToEnd(runner, target, skillOf(runner, 'writer'), input);

    const result = (await eventsOf(runner, target.executionId)).find((event) => event.type === 'execution.result');
    const artifactId = result?.type === 'execution.result' ? result.payload.artifactId : undefined;
    expect(artifactId).toEqual(expect.any(String));
    const artifact = await runner.db
      .selectFrom('artifacts')
      .select(['status', 'execution_id', 'content_size'])
      .where('id', '=', artifactId ?? '')
      .executeTakeFirst();
    expect(artifact).toEqual({ status: 'completed', execution_id: target.executionId, content_size: 5 });
  });
});

describe('a run that fails', () => {
  it('stores why with an error stop, and keeps its charge when the skill itself failed', async ({ runner }) => {
    const { user, target } = await claimed(runner);
    await runToEnd(runner, target, skillOf(runner, 'crashes'), '');

    const events = await eventsOf(runner, target.executionId);
    expect(events.map((event) => event.type)).toEqual(['agent.message', 'agent.info', 'session.status_idle']);
    expect(infoOf(events)).toEqual([expect.stringMatching(/^the skill exited with code 1: .*deliberate crash/)]);
    expect(events.at(-1)?.payload).toEqual({ stop_reason: { type: 'error' } });
    expect(await rowOf(runner, target.executionId)).toMatchObject({
      status: 'failed',
      stop_reason: 'error',
      completed_at: runner.clock.now().toISOString(),
      cost: PRICE,
    });
    expect(await balanceOf(runner, user.id)).toBe(CREDITS - PRICE);
    expect(await refundsOf(runner, target.executionId)).toEqual([]);
  });

  it.for([
    { fault: 'service', why: 'the service failed it' },
    { fault: 'own-key', why: 'your own model key was refused before it did any work' },
  ] as const)('is refunded when the fault is $fault, and says so in the ledger', async ({ fault, why }, { runner }) => {
    const { user, target } = await claimed(runner);
    await finishRun(runner, target, resultWithoutRun({ kind: 'failed', reason: 'the vendor said no', fault }));

    expect(infoOf(await eventsOf(runner, target.executionId))).toEqual(['the vendor said no']);
    expect(await rowOf(runner, target.executionId)).toMatchObject({ status: 'failed', stop_reason: 'error', cost: 0 });
    expect(await balanceOf(runner, user.id)).toBe(CREDITS);
    expect(await refundsOf(runner, target.executionId)).toEqual([`Refund of run ${target.executionId}: ${why}`]);
  });

  it('ends with limit_reached, charged, when the payer ran out of credits', async ({ runner }) => {
    const { user, target } = await claimed(runner);
    await finishRun(runner, target, resultWithoutRun({ kind: 'limit_reached', reason: 'out of credits' }));

    const events = await eventsOf(runner, target.executionId);
    expect(infoOf(events)).toEqual(['out of credits']);
    expect(events.at(-1)?.payload).toEqual({ stop_reason: { type: 'limit_reached' } });
    expect(await rowOf(runner, target.executionId)).toMatchObject({
      status: 'failed',
      stop_reason: 'limit_reached',
      cost: PRICE,
    });
    expect(await balanceOf(runner, user.id)).toBe(CREDITS - PRICE);
  });
});

describe('a run that is stopped', () => {
  it('by a person goes idle with interrupt and keeps its charge', async ({ runner }) => {
    const { user, target } = await claimed(runner);
    const started = firstMessage(runner, target.executionId);
    await launchRun(runner, target, skillOf(runner, 'priced-ticker'), '10000 5');
    const run = runner.runs.get(target.executionId);
    await started;
    run?.stop();
    // A later stop does not change who stopped it: the first cause is the one recorded.
    run?.stop('shutdown');
    await run?.settled;

    const events = await eventsOf(runner, target.executionId);
    expect(events.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'interrupt' } } });
    expect(infoOf(events)).toEqual([]);
    expect(events.some((event) => event.type === 'execution.result')).toBe(false);
    expect(await rowOf(runner, target.executionId)).toMatchObject({
      status: 'idle',
      stop_reason: 'interrupt',
      completed_at: null,
      cost: PRICE,
    });
    expect(await balanceOf(runner, user.id)).toBe(CREDITS - PRICE);
    expect(runner.runs.get(target.executionId)).toBeUndefined();
  });

  it('by the server shutting down is refunded and told so', async ({ runner }) => {
    const { user, target } = await claimed(runner);
    const started = firstMessage(runner, target.executionId);
    await launchRun(runner, target, skillOf(runner, 'priced-ticker'), '10000 5');
    await started;
    await runner.runs.stopAll();

    const events = await eventsOf(runner, target.executionId);
    expect(events.at(-1)).toMatchObject({ type: 'session.status_idle', payload: { stop_reason: { type: 'interrupt' } } });
    expect(infoOf(events)).toEqual([expect.stringMatching(/^The server was shut down before this run finished/)]);
    expect(await rowOf(runner, target.executionId)).toMatchObject({ status: 'idle', stop_reason: 'interrupt', cost: 0 });
    expect(await balanceOf(runner, user.id)).toBe(CREDITS);
    expect(await refundsOf(runner, target.executionId)).toEqual([
      expect.stringMatching(new RegExp(`^Refund of run ${target.executionId}: the server shut down before it finished`)),
    ]);
  });
});

describe('a run whose skill cannot start', () => {
  it('fails at once, refunded, when there is no skill to run', async ({ runner }) => {
    const { user, target } = await claimed(runner);
    await launchRun(runner, target, undefined, 'anything');

    expect(runner.runs.get(target.executionId)).toBeUndefined();
    const events = await eventsOf(runner, target.executionId);
    expect(events.map((event) => event.type)).toEqual(['agent.info', 'session.status_idle']);
    expect(infoOf(events)).toEqual(['this skill cannot run on this server']);
    expect(await rowOf(runner, target.executionId)).toMatchObject({ status: 'failed', stop_reason: 'error', cost: 0 });
    expect(await balanceOf(runner, user.id)).toBe(CREDITS);
    expect(await refundsOf(runner, target.executionId)).toEqual([`Refund of run ${target.executionId}: the service failed it`]);
  });

  it('fails with the runtime’s refusal, refunded, when the skill may not run here', async ({ runner }) => {
    const { user, target } = await claimed(runner);
    // A skill that is not built in, on a server whose sandbox runs only built-in skills.
    const builtInsOnly: AppContext = { ...runner, sandbox: BUILT_INS_ONLY };
    await launchRun(builtInsOnly, target, skillOf(runner, 'priced-ticker'), '3 1');

    expect(runner.runs.get(target.executionId)).toBeUndefined();
    expect(infoOf(await eventsOf(runner, target.executionId))).toEqual([
      expect.stringMatching(/^the skill sandbox is not available on this server, so only built-in skills run/),
    ]);
    expect(await rowOf(runner, target.executionId)).toMatchObject({ status: 'failed', stop_reason: 'error', cost: 0 });
    expect(await balanceOf(runner, user.id)).toBe(CREDITS);
  });
});

describe("the listeners of a run's end", () => {
  it('are each told once per run end, in order, after the closing events; one that throws stops neither the next nor the run', async ({
    runner,
  }) => {
    const told: string[] = [];
    const logged: string[] = [];
    type Listener = (end: RunTarget) => Promise<void>;
    const first: Listener = async ({ executionId }) => {
      told.push(`first:${executionId}`);
      // Handing the event loop over shows whether the next listener waits for this one.
      await new Promise((resolve) => setImmediate(resolve));
      const row = await rowOf(runner, executionId);
      const closing = (await eventsOf(runner, executionId)).at(-1);
      told.push(`first done:${executionId}:${row.status}:${closing?.type}`);
    };
    const broken: Listener = async ({ executionId }) => {
      told.push(`broken:${executionId}`);
      throw new Error('this listener is broken');
    };
    const last: Listener = async ({ executionId }) => {
      told.push(`last:${executionId}`);
    };
    const log = pino({ level: 'error' }, { write: (line: string) => logged.push(line) });
    const runLife = new RunLifeBus(log);
    const ends: RunEndName[] = ['run.completed', 'run.failed', 'run.stopped'];
    for (const end of ends) for (const listener of [first, broken, last]) runLife.on(end, listener);
    const listening: AppContext = { ...runner, runLife, log };

    const completed = await claimed(runner);
    await runToEnd(listening, completed.target, skillOf(runner, 'priced-ticker'), '2 1');
    const unstartable = await claimed(runner);
    await launchRun(listening, unstartable.target, undefined, '');
    const stopped = await claimed(runner);
    const started = firstMessage(runner, stopped.target.executionId);
    await launchRun(listening, stopped.target, skillOf(runner, 'priced-ticker'), '10000 5');
    await started;
    const run = listening.runs.get(stopped.target.executionId);
    run?.stop();
    await run?.settled;

    const heard = (id: string, status: string) => [
      `first:${id}`,
      `first done:${id}:${status}:session.status_idle`,
      `broken:${id}`,
      `last:${id}`,
    ];
    expect(told).toEqual([
      ...heard(completed.target.executionId, 'completed'),
      ...heard(unstartable.target.executionId, 'failed'),
      ...heard(stopped.target.executionId, 'idle'),
    ]);
    // The broken listener's failure is logged for each run and changes none of them.
    expect(logged.map((line) => JSON.parse(line) as { msg: string; executionId: string })).toEqual(
      (
        [
          [completed, 'run.completed'],
          [unstartable, 'run.failed'],
          [stopped, 'run.stopped'],
        ] as const
      ).map(([{ target }, end]) =>
        expect.objectContaining({ msg: `a listener of ${end} failed`, executionId: target.executionId }),
      ),
    );
    expect((await rowOf(runner, completed.target.executionId)).status).toBe('completed');
  });
});

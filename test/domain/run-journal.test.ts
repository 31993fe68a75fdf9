import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { describe, expect } from 'vitest';
import type { AppContext } from '../../src/context.js';
import { dialectOf } from '../../src/db/database.js';
import { type RunOwner, releaseLostRun, takeQueuedRun } from '../../src/runs/executions.store.js';
import {
  CHECKPOINT_MAX_FILES,
  closeRunJournals,
  filesTracked,
  openRunJournal,
  RunHandedOn,
  sweepCheckpointStores,
} from '../../src/runs/run-journal.js';
import type { JournalStep } from '../../src/runtime/journal-steps.js';
import { withDomain } from '../helpers/domain.js';
import { anExecution } from '../helpers/rows.js';

const it = withDomain();

const reply = (n: number): JournalStep => ({
  kind: 'model_reply',
  content: [
    { type: 'thinking', thinking: `Step ${n}.`, signature: `signed-${n}` },
    { type: 'tool_call', id: `call-${n}`, name: 'bash', input: { command: `echo ${n} >> log.txt` } },
  ],
  usage: { input_tokens: 100, output_tokens: 10 * n },
});
const result = (n: number) => ({ callId: `call-${n}`, name: 'bash', output: `step ${n} done`, isError: false });

/** This node's attempt at a run, as its worker names it on taking the run. */
const attemptOf = (ctx: AppContext, attempt = 'attempt-1'): RunOwner => ({ node: ctx.config.nodeId, attempt });

/** A working run owned by `owner` (this node's first attempt by default), and an empty folder for its output. */
async function ownedRun(ctx: AppContext, owner: RunOwner = attemptOf(ctx)) {
  const execution = await anExecution(ctx.db, {
    status: 'working',
    ownerNode: owner.node,
    ownerAttempt: owner.attempt ?? undefined,
  });
  const output = await mkdtemp(path.join(tmpdir(), 'skillet-journal-output-'));
  return { key: { executionId: execution.execution_id, runStart: 1 }, output };
}

const asFirstAttempt = (ctx: AppContext) => ({ owner: attemptOf(ctx), resuming: false });
const asResumedAttempt = (ctx: AppContext) => ({ owner: attemptOf(ctx), resuming: true });

describe("a run's journal", () => {
  it('gives a resumed attempt exactly the steps and files the lost one completed', async ({ ctx, domain }) => {
    const { key, output } = await ownedRun(ctx);
    const journal = await openRunJournal(ctx, key, asFirstAttempt(ctx));
    expect(journal.steps).toEqual([]);
    expect(journal.resumedFrom).toBeUndefined();
    await ctx.db.transaction().execute((trx) => journal.writeIn(trx, reply(1)));
    await mkdir(path.join(output, 'notes'));
    await writeFile(path.join(output, 'notes', 'log.txt'), '1\n');
    await journal.toolAnswered(result(1), { output });
    await ctx.db.transaction().execute((trx) => journal.writeIn(trx, reply(2)));
    await journal.toolStarted('call-2', 'web_fetch');
    await writeFile(path.join(output, 'notes', 'log.txt'), '1\n2\n');
    domain.clock.advance(7_000);

    const resumed = await openRunJournal(ctx, key, asResumedAttempt(ctx));
    expect(resumed.steps).toEqual([
      reply(1),
      { kind: 'tool_result', result: result(1) },
      reply(2),
      { kind: 'tool_started', callId: 'call-2', name: 'web_fetch' },
    ]);
    expect(resumed.resumedFrom).toEqual({ pauseSeconds: 7 });
    // The files as the last journaled tool call left them, not as the lost attempt went on to change them.
    const fresh = await mkdtemp(path.join(tmpdir(), 'skillet-journal-fresh-'));
    await resumed.restore({ output: fresh });
    expect(await readFile(path.join(fresh, 'notes', 'log.txt'), 'utf8')).toBe('1\n');
    await rm(fresh, { recursive: true });
    await rm(output, { recursive: true });
  });

  it("refuses the steps of a node the run was taken from, so a cut-off node's charges do not commit", async ({ ctx }) => {
    const { key, output } = await ownedRun(ctx, { node: 'another-node', attempt: 'attempt-1' });
    const journal = await openRunJournal(ctx, key, asFirstAttempt(ctx));
    await expect(ctx.db.transaction().execute((trx) => journal.writeIn(trx, reply(1)))).rejects.toBeInstanceOf(RunHandedOn);
    await expect(journal.toolAnswered(result(1), { output })).rejects.toBeInstanceOf(RunHandedOn);
    expect((await openRunJournal(ctx, key, asResumedAttempt(ctx))).steps).toEqual([]);
    await rm(output, { recursive: true });
  });

  it("refuses an earlier attempt's steps once the run was handed back to the same node", async ({ ctx }) => {
    const { key, output } = await ownedRun(ctx);
    const earlier = await openRunJournal(ctx, key, asFirstAttempt(ctx));
    await ctx.db.transaction().execute((trx) => earlier.writeIn(trx, reply(1)));
    // The cluster took this node for silent and handed the run on; this node's worker took it again.
    expect(await releaseLostRun(ctx.db, key.executionId, attemptOf(ctx))).toBe(true);
    expect(await takeQueuedRun(ctx.db, key.executionId, attemptOf(ctx, 'attempt-2'))).toBe(true);
    const later = await openRunJournal(ctx, key, { owner: attemptOf(ctx, 'attempt-2'), resuming: true });
    await expect(ctx.db.transaction().execute((trx) => earlier.writeIn(trx, reply(2)))).rejects.toBeInstanceOf(RunHandedOn);
    await ctx.db.transaction().execute((trx) => later.writeIn(trx, reply(2)));
    // Releasing the lost attempt again does not let go of the later one.
    expect(await releaseLostRun(ctx.db, key.executionId, attemptOf(ctx))).toBe(false);
    expect((await openRunJournal(ctx, key, { owner: attemptOf(ctx, 'attempt-2'), resuming: true })).steps).toEqual([
      reply(1),
      reply(2),
    ]);
    await rm(output, { recursive: true });
  });

  it('makes a hand-on wait for a step the lost attempt is committing, so the next attempt sees it', async ({ ctx }) => {
    const { key, output } = await ownedRun(ctx);
    const journal = await openRunJournal(ctx, key, asFirstAttempt(ctx));
    let committing = true;
    let releasedDuringStep = false;
    let release: Promise<boolean> | undefined;
    await ctx.db.transaction().execute(async (trx) => {
      await journal.writeIn(trx, reply(1));
      release = releaseLostRun(ctx.db, key.executionId, attemptOf(ctx)).then((released) => {
        releasedDuringStep = committing;
        return released;
      });
      // The rest of a charge's transaction, taking its time (PostgreSQL; SQLite runs one writer at a time anyway).
      if (dialectOf(ctx.db) === 'postgres') await sql`select pg_sleep(0.3)`.execute(trx);
      committing = false;
    });
    expect(await release).toBe(true);
    expect(releasedDuringStep).toBe(false);
    expect((await openRunJournal(ctx, key, asResumedAttempt(ctx))).steps).toEqual([reply(1)]);
    await rm(output, { recursive: true });
  });

  it('is dropped once the run has ended, with its checkpoint blobs', async ({ ctx }) => {
    const { key, output } = await ownedRun(ctx);
    const journal = await openRunJournal(ctx, key, asFirstAttempt(ctx));
    await writeFile(path.join(output, 'only-here.txt'), `kept until the run ends ${key.executionId}`);
    await journal.toolAnswered(result(1), { output });
    const [file] = await ctx.db
      .selectFrom('run_checkpoint_files')
      .select('sha256')
      .where('execution_id', '=', key.executionId)
      .execute();
    const blob = ctx.blobs.scope(`checkpoints-${key.executionId}`).pathOf?.(file?.sha256 ?? '') ?? '';
    expect(existsSync(blob)).toBe(true);
    await closeRunJournals(ctx, key.executionId);
    expect((await openRunJournal(ctx, key, asResumedAttempt(ctx))).steps).toEqual([]);
    expect(
      await ctx.db.selectFrom('run_checkpoint_files').selectAll().where('execution_id', '=', key.executionId).execute(),
    ).toEqual([]);
    expect(existsSync(blob)).toBe(false);
    await rm(output, { recursive: true });
  });

  it("sweeps the checkpoint stores of runs no longer working, and keeps a working run's", async ({ ctx }) => {
    const working = await ownedRun(ctx);
    const journal = await openRunJournal(ctx, working.key, asFirstAttempt(ctx));
    await writeFile(path.join(working.output, 'a.txt'), 'still needed');
    await journal.toolAnswered(result(1), { output: working.output });
    const ended = await anExecution(ctx.db, { status: 'completed' });
    // What a failed drop, or an attempt that went on writing after its run ended, leaves.
    const left = ctx.blobs.scope(`checkpoints-${ended.execution_id}`);
    await left.commit(await left.stage(Readable.from([Buffer.from('left behind')])));
    await sweepCheckpointStores(ctx);
    const stores = await ctx.blobs.scopes();
    expect(stores).toContain(`checkpoints-${working.key.executionId}`);
    expect(stores).not.toContain(`checkpoints-${ended.execution_id}`);
    await closeRunJournals(ctx, working.key.executionId);
    await rm(working.output, { recursive: true });
  });

  it('stops checkpointing a run whose step wrote more files than a checkpoint takes, which then cannot go on elsewhere', async ({
    ctx,
  }) => {
    const { key, output } = await ownedRun(ctx);
    const journal = await openRunJournal(ctx, key, asFirstAttempt(ctx));
    for (let i = 0; i <= CHECKPOINT_MAX_FILES; i++) await writeFile(path.join(output, `f-${i}.txt`), String(i));
    await journal.toolAnswered(result(1), { output });
    expect(await filesTracked(ctx, key)).toBe(false);
    expect((await openRunJournal(ctx, key, asResumedAttempt(ctx))).steps).toEqual([
      { kind: 'files_untracked', why: `one tool call changed more than ${CHECKPOINT_MAX_FILES} files` },
      { kind: 'tool_result', result: result(1) },
    ]);
    expect(
      await ctx.db.selectFrom('run_checkpoint_files').selectAll().where('execution_id', '=', key.executionId).execute(),
    ).toEqual([]);
    await rm(output, { recursive: true });
  });
});

import type { Kysely, Updateable } from 'kysely';
import { describe, expect } from 'vitest';
import { inGroupedSteps } from '../../src/db/group-commit.js';
import { runSteps } from '../../src/db/statement-steps.js';
import type { Tables } from '../../src/db/tables.js';
import type { ExecutionsTable } from '../../src/db/tables-runs.js';
import { frameChunksAfter } from '../../src/runs/event-blocks.store.js';
import type { NewEvent } from '../../src/runs/event-codec.js';
import { appendEvents } from '../../src/runs/events.store.js';
import { withDomain } from '../helpers/domain.js';
import { anExecution } from '../helpers/rows.js';

const it = withDomain();
const NOW = '2026-11-29T06:00:00.000Z';

function info(message: string) {
  return { type: 'agent.info' as const, payload: { message } };
}

type Change = Updateable<ExecutionsTable>;

/**
 * The two ways events are stored: through Kysely in a transaction of the caller's, and
 * grouped (a run's own events), which on SQLite runs on the writer's connection directly.
 */
const ways = {
  'in a transaction of the caller’s': (db: Kysely<Tables>, executionId: string, events: NewEvent[], change: Change = {}) =>
    db.transaction().execute((trx) => runSteps(trx, appendEvents(trx, executionId, events, NOW, change))),
  grouped: (db: Kysely<Tables>, executionId: string, events: NewEvent[], change: Change = {}) =>
    inGroupedSteps(db, (steps) => appendEvents(steps, executionId, events, NOW, change)),
};

describe.each(Object.entries(ways))('storing an execution’s events, %s', (_, store) => {
  it('numbers them without gaps whether they come one at a time or together, with or without a change to the row', async ({
    ctx,
  }) => {
    const execution = await anExecution(ctx.db, { status: 'working' });
    const append = (messages: string[], change: Change = {}) => store(ctx.db, execution.execution_id, messages.map(info), change);

    const one = await append(['first']);
    const three = await append(['second', 'third', 'fourth']);
    const again = await append(['fifth']);
    const ending = await append(['sixth'], { status: 'completed', stop_reason: 'end_turn', completed_at: NOW });
    const endingTwo = await append(['seventh', 'eighth'], { cost: 3 });

    const sequences = [one, three, again, ending, endingTwo].flat().map((stored) => stored.event.sequence);
    expect(sequences).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const row = await ctx.db
      .selectFrom('executions')
      .select(['last_sequence', 'status', 'cost'])
      .where('execution_id', '=', execution.execution_id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ last_sequence: 8, status: 'completed' });
    expect(Number(row.cost)).toBe(3);

    let replayed = '';
    for await (const chunk of frameChunksAfter(ctx.db, execution.execution_id, 0, 8)) replayed += chunk.text;
    expect(replayed).toBe(
      [one, three, again, ending, endingTwo]
        .flat()
        .map((stored) => stored.frame)
        .join(''),
    );
    for (const message of ['first', 'fourth', 'fifth', 'eighth']) expect(replayed).toContain(message);
  });

  it('stores batches of every size alike, the prepared ones (up to 8) and the larger ones built as they come', async ({
    ctx,
  }) => {
    const execution = await anExecution(ctx.db, { status: 'working' });
    const sizes = [2, 3, 4, 5, 6, 7, 8, 9, 20];
    let next = 1;
    for (const size of sizes) {
      const messages = Array.from({ length: size }, (_, i) => `event ${next + i}`);
      const stored = await store(ctx.db, execution.execution_id, messages.map(info));
      expect(stored.map((event) => event.event.sequence)).toEqual(messages.map((_, i) => next + i));
      next += size;
    }
    const rows = await ctx.db
      .selectFrom('execution_events')
      .select(['sequence', 'frame', 'created_at'])
      .where('execution_id', '=', execution.execution_id)
      .orderBy('sequence')
      .execute();
    expect(rows.map((row) => row.sequence)).toEqual(Array.from({ length: next - 1 }, (_, i) => i + 1));
    rows.forEach((row, i) => {
      expect(row.frame).toContain(`event ${i + 1}`);
      expect(new Date(row.created_at).toISOString()).toBe(NOW);
    });
  });

  it('joins every 256 events into a block as the last of them is stored, which a replay then reads', async ({ ctx }) => {
    const execution = await anExecution(ctx.db, { status: 'working' });
    const messages = Array.from({ length: 600 }, (_, i) => `event ${i + 1}`);
    const stored = [];
    // Batches that straddle the blocks' edges, as a busy run's do.
    for (let at = 0; at < messages.length; at += 50) {
      stored.push(...(await store(ctx.db, execution.execution_id, messages.slice(at, at + 50).map(info))));
    }
    const blocks = await ctx.db
      .selectFrom('execution_event_blocks')
      .select('block')
      .where('execution_id', '=', execution.execution_id)
      .orderBy('block')
      .execute();
    expect(blocks.map((row) => row.block)).toEqual([0, 1]);
    let replayed = '';
    for await (const chunk of frameChunksAfter(ctx.db, execution.execution_id, 0)) replayed += chunk.text;
    expect(replayed).toBe(stored.map((event) => event.frame).join(''));
  });

  it('keeps each execution’s count its own', async ({ ctx }) => {
    const [mine, theirs] = [await anExecution(ctx.db), await anExecution(ctx.db)];
    const append = (executionId: string, message: string) => store(ctx.db, executionId, [info(message)]);
    await append(mine.execution_id, 'a');
    await append(mine.execution_id, 'b');
    const [first] = await append(theirs.execution_id, 'c');
    expect(first?.event.sequence).toBe(1);
  });

  it('refuses events of an execution that is not there, storing nothing', async ({ ctx }) => {
    const missing = '00000000-0000-4000-8000-000000000000';
    await expect(store(ctx.db, missing, [info('lost')])).rejects.toThrow(/is gone/);
    const stored = await ctx.db.selectFrom('execution_events').select('sequence').where('execution_id', '=', missing).execute();
    expect(stored).toEqual([]);
  });
});

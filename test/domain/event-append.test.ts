import { describe, expect } from 'vitest';
import { frameChunksAfter } from '../../src/executions/event-blocks.store.js';
import { appendEvents } from '../../src/executions/events.store.js';
import { withDomain } from '../helpers/domain.js';
import { anExecution } from '../helpers/rows.js';

const it = withDomain();
const NOW = '2026-11-29T06:00:00.000Z';

function info(message: string) {
  return { type: 'agent.info' as const, payload: { message } };
}

describe('storing an execution’s events', () => {
  it('numbers them without gaps whether they come one at a time or together, with or without a change to the row', async ({
    ctx,
  }) => {
    const execution = await anExecution(ctx.db, { status: 'working' });
    const append = (messages: string[], change = {}) =>
      ctx.db.transaction().execute((trx) => appendEvents(trx, execution.execution_id, messages.map(info), NOW, change));

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
      const stored = await ctx.db
        .transaction()
        .execute((trx) => appendEvents(trx, execution.execution_id, messages.map(info), NOW));
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

  it('keeps each execution’s count its own', async ({ ctx }) => {
    const [mine, theirs] = [await anExecution(ctx.db), await anExecution(ctx.db)];
    const append = (executionId: string, message: string) =>
      ctx.db.transaction().execute((trx) => appendEvents(trx, executionId, [info(message)], NOW));
    await append(mine.execution_id, 'a');
    await append(mine.execution_id, 'b');
    const [first] = await append(theirs.execution_id, 'c');
    expect(first?.event.sequence).toBe(1);
  });

  it('refuses events of an execution that is not there, storing nothing', async ({ ctx }) => {
    const missing = '00000000-0000-4000-8000-000000000000';
    await expect(ctx.db.transaction().execute((trx) => appendEvents(trx, missing, [info('lost')], NOW))).rejects.toThrow(
      /is gone/,
    );
    const stored = await ctx.db.selectFrom('execution_events').select('sequence').where('execution_id', '=', missing).execute();
    expect(stored).toEqual([]);
  });
});

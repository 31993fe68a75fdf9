import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.js';
import { isUniqueViolation } from '../../src/db/errors.js';
import { GroupCommit, inGroupedSteps } from '../../src/db/group-commit.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { type Steps, statement } from '../../src/db/statement-steps.js';
import type { Tables } from '../../src/db/tables.js';

let dir: string;
let database: Database;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'skillet-group-commit-'));
  database = openDatabase({ kind: 'sqlite', file: path.join(dir, 'test.db') });
  await migrateToLatest(database);
});
afterEach(async () => {
  await database.close();
  await rm(dir, { recursive: true, force: true });
});

const claim = (trx: Kysely<Tables>, id: string) =>
  trx.insertInto('payment_events').values({ id, type: 'test', received_at: '2026-01-01T00:00:00.000Z' }).execute();
function* claimSteps(db: Kysely<Tables>, id: string): Steps<number> {
  yield* statement(
    db.insertInto('payment_events').values({ id, type: 'test', received_at: '2026-01-01T00:00:00.000Z' }).compile(),
  );
  const { rows } = yield* statement(db.selectFrom('payment_events').select('id').compile());
  return rows.length;
}
const claimed = async () =>
  (await database.db.selectFrom('payment_events').select('id').orderBy('id').execute()).map((row) => row.id);

describe('GroupCommit (SQLite)', () => {
  it('runs the pieces queued in one turn in one transaction, each answered after the commit', async () => {
    const group = new GroupCommit(database.db);
    const seen: number[] = [];
    const answers = await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        group.run(async (trx) => {
          await claim(trx, id);
          // Each piece sees the earlier pieces' writes: they share the transaction.
          seen.push((await trx.selectFrom('payment_events').select('id').execute()).length);
          return id.toUpperCase();
        }),
      ),
    );
    expect(answers).toEqual(['A', 'B', 'C']);
    expect(seen).toEqual([1, 2, 3]);
    expect(await claimed()).toEqual(['a', 'b', 'c']);
  });

  it('rolls a failing piece back to its savepoint: it fails alone, and the others commit', async () => {
    const group = new GroupCommit(database.db);
    const results = await Promise.allSettled([
      group.run((trx) => claim(trx, 'a')),
      group.run(async (trx) => {
        await claim(trx, 'b');
        throw new Error('piece b failed after writing');
      }),
      group.run((trx) => claim(trx, 'a')),
      group.run((trx) => claim(trx, 'c')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('piece b failed after writing'));
    expect(isUniqueViolation((results[2] as PromiseRejectedResult).reason)).toBe(true);
    expect(await claimed()).toEqual(['a', 'c']);
  });

  it('splits a crowded turn into several transactions', async () => {
    const group = new GroupCommit(database.db);
    const ids = Array.from({ length: 150 }, (_, i) => `e${String(i).padStart(3, '0')}`);
    await Promise.all(ids.map((id) => group.run((trx) => claim(trx, id))));
    expect(await claimed()).toEqual(ids);
  });

  it('runs a piece queued while a batch commits in the next batch', async () => {
    const group = new GroupCommit(database.db);
    const later: Promise<unknown>[] = [];
    await group.run(async (trx) => {
      later.push(group.run((next) => claim(next, 'later')));
      await claim(trx, 'first');
    });
    await Promise.all(later);
    expect(await claimed()).toEqual(['first', 'later']);
  });
});

describe('GroupCommit with Steps (SQLite, on the writer’s connection)', () => {
  it('runs a turn’s Steps in one transaction with one commit, each seeing the ones before and answered after the commit', async () => {
    const before = database.commitsSent();
    const answers = await Promise.all(['a', 'b', 'c'].map((id) => inGroupedSteps(database.db, (db) => claimSteps(db, id))));
    expect(answers).toEqual([1, 2, 3]);
    expect(database.commitsSent() - before).toBe(1);
    expect(await claimed()).toEqual(['a', 'b', 'c']);
  });

  it('rolls a failing piece back to its savepoint: it fails alone, and the others commit', async () => {
    const results = await Promise.allSettled([
      inGroupedSteps(database.db, (db) => claimSteps(db, 'a')),
      inGroupedSteps(database.db, function* (db) {
        yield* claimSteps(db, 'b');
        throw new Error('piece b failed after writing');
      }),
      inGroupedSteps(database.db, (db) => claimSteps(db, 'a')),
      inGroupedSteps(database.db, (db) => claimSteps(db, 'c')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toEqual(new Error('piece b failed after writing'));
    expect(isUniqueViolation((results[2] as PromiseRejectedResult).reason)).toBe(true);
    expect(await claimed()).toEqual(['a', 'c']);
  });

  it('fails a lone piece whose statement fails, writing nothing of it', async () => {
    await inGroupedSteps(database.db, (db) => claimSteps(db, 'a'));
    const failing = inGroupedSteps(database.db, function* (db) {
      yield* claimSteps(db, 'b');
      yield* claimSteps(db, 'a');
    });
    await expect(failing).rejects.toSatisfy(isUniqueViolation);
    expect(await claimed()).toEqual(['a']);
  });

  it('throws a failed statement into the piece, which may catch it and go on', async () => {
    await inGroupedSteps(database.db, (db) => claimSteps(db, 'a'));
    const outcome = await inGroupedSteps(database.db, function* (db) {
      try {
        yield* claimSteps(db, 'a');
        return 'stored twice';
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
      yield* claimSteps(db, 'b');
      return 'caught';
    });
    expect(outcome).toBe('caught');
    expect(await claimed()).toEqual(['a', 'b']);
  });

  it('waits for a transaction under way to end instead of writing inside it', async () => {
    let letGo = () => {};
    const held = new Promise<void>((resolve) => {
      letGo = resolve;
    });
    let opened = () => {};
    const isOpen = new Promise<void>((resolve) => {
      opened = resolve;
    });
    const open = database.db.transaction().execute(async (trx) => {
      await claim(trx, 'inside');
      opened();
      await held;
      throw new Error('rolled back');
    });
    await isOpen;
    const grouped = inGroupedSteps(database.db, (db) => claimSteps(db, 'outside'));
    // Both turns of the event loop pass with the transaction still open: the piece waits.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    letGo();
    await expect(open).rejects.toThrow('rolled back');
    await expect(grouped).resolves.toBe(1);
    expect(await claimed()).toEqual(['outside']);
  });

  it('runs Steps beside plain work through Kysely, in the same one transaction', async () => {
    const before = database.commitsSent();
    const answers = await Promise.all([
      inGroupedSteps(database.db, (db) => claimSteps(db, 'a')),
      new GroupCommit(database.db).run(async (trx) => {
        await claim(trx, 'x');
        return 0;
      }),
    ]);
    expect(answers[0]).toBe(1);
    expect(database.commitsSent() - before).toBe(2);
    expect(await claimed()).toEqual(['a', 'x']);
  });
});

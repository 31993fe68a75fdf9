import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.js';
import { isUniqueViolation } from '../../src/db/errors.js';
import { GroupCommit } from '../../src/db/group-commit.js';
import { migrateToLatest } from '../../src/db/migrate.js';
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

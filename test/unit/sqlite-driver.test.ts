import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/db/database.js';
import { isUniqueViolation } from '../../src/db/errors.js';
import { sqliteDriver } from '../../src/db/sqlite-driver.js';
import { directReaderOf } from '../../src/db/sqlite-reader.js';

/**
 * The SQLite store on whichever library the running Node gets (node:sqlite from Node 22.16,
 * better-sqlite3 on Node 20): CI runs this file on both, and both must behave the same.
 */
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
const expectedDriver =
  major >= 24 || (major === 23 && minor >= 11) || (major === 22 && minor >= 16) ? 'node:sqlite' : 'better-sqlite3';

const loadedModules = () => Object.keys(createRequire(import.meta.url).cache);
const loadedBuiltIns = () => (process as unknown as { moduleLoadList: string[] }).moduleLoadList;

// First, before this file opens any SQLite file: a PostgreSQL store must not need either library.
describe(`PostgreSQL on Node ${process.versions.node}`, () => {
  it('opening a PostgreSQL database loads neither SQLite library', async () => {
    const postgres = openDatabase({ kind: 'postgres', url: 'postgres://nobody@127.0.0.1:9/none' });
    await postgres.close();
    expect(loadedModules().filter((file) => file.includes(`${path.sep}better-sqlite3${path.sep}`))).toEqual([]);
    expect(loadedBuiltIns()).not.toContain('NativeModule sqlite');
  });
});

describe(`SQLite on Node ${process.versions.node}`, () => {
  let dir: string;
  let database: Database;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'skillet-sqlite-driver-'));
    database = openDatabase({ kind: 'sqlite', file: path.join(dir, 'test.db') });
    await sql`create table parents (id integer primary key autoincrement, name text not null unique, weight real, note text)`.execute(
      database.db,
    );
    await sql`create table children (id text primary key, parent_id integer not null references parents(id))`.execute(
      database.db,
    );
  });
  afterAll(async () => {
    await database.close();
    await rm(dir, { recursive: true, force: true });
  });

  it(`is served by ${expectedDriver}`, () => {
    expect(sqliteDriver()).toBe(expectedDriver);
  });

  it('runs in WAL mode with foreign keys, a 5 s busy timeout, synchronous NORMAL and a 16 MB page cache', async () => {
    const pragma = async (name: string) =>
      Object.values((await sql.raw(`pragma ${name}`).execute(database.db)).rows[0] as object)[0];
    expect(await pragma('journal_mode')).toBe('wal');
    expect(await pragma('foreign_keys')).toBe(1);
    expect(await pragma('busy_timeout')).toBe(5000);
    expect(await pragma('synchronous')).toBe(1);
    expect(await pragma('cache_size')).toBe(-16000);
  });

  it('hands back numbers, text and nulls as numbers, strings and null, and counts what a write changed', async () => {
    const inserted = await sql`insert into parents (name, weight, note) values (${'ada'}, ${1.5}, ${null})`.execute(database.db);
    expect(inserted.insertId).toBe(1n);
    expect(inserted.numAffectedRows).toBe(1n);
    const { rows } = await sql<{ id: number; name: string; weight: number; note: null; total: number }>`
      select id, name, weight, note, (select count(*) from parents) as total from parents where name = ${'ada'}`.execute(
      database.db,
    );
    expect(rows).toEqual([{ id: 1, name: 'ada', weight: 1.5, note: null, total: 1 }]);
    expect(typeof rows[0]?.id).toBe('number');
    const updated = await sql`update parents set weight = weight + 1 where id > ${0}`.execute(database.db);
    expect(updated.numAffectedRows).toBe(1n);
  });

  it('returns the rows of a write with RETURNING', async () => {
    const { rows } = await sql<{ id: number }>`insert into parents (name) values (${'grace'}) returning id`.execute(database.db);
    expect(rows).toEqual([{ id: 2 }]);
  });

  it('names a UNIQUE and a FOREIGN KEY violation as better-sqlite3 does, and a bad statement is an SQLite error', async () => {
    const duplicate = await sql`insert into parents (name) values (${'ada'})`
      .execute(database.db)
      .catch((error: unknown) => error);
    expect(isUniqueViolation(duplicate)).toBe(true);
    expect(duplicate).toMatchObject({
      code: 'SQLITE_CONSTRAINT_UNIQUE',
      message: expect.stringMatching(/UNIQUE constraint failed/),
    });
    const orphan = await sql`insert into children (id, parent_id) values (${'c1'}, ${999})`
      .execute(database.db)
      .catch((e: unknown) => e);
    expect(orphan).toMatchObject({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' });
    const broken = await sql
      .raw('selec 1')
      .execute(database.db)
      .catch((error: unknown) => error);
    expect(broken).toMatchObject({ code: 'SQLITE_ERROR' });
  });

  it('rolls a failed transaction back whole', async () => {
    const failed = await database.db
      .transaction()
      .execute(async (trx) => {
        await sql`insert into parents (name) values (${'lin'})`.execute(trx);
        await sql`insert into parents (name) values (${'lin'})`.execute(trx);
      })
      .catch((error: unknown) => error);
    expect(isUniqueViolation(failed)).toBe(true);
    const { rows } = await sql<{ n: number }>`select count(*) as n from parents where name = ${'lin'}`.execute(database.db);
    expect(rows).toEqual([{ n: 0 }]);
  });

  it('reads committed rows on the read-only connection, which refuses writes', () => {
    const reader = directReaderOf(database.db);
    expect(reader?.first('select name from parents where id = ?', [1])).toEqual({ name: 'ada' });
    expect(reader?.all('select id from parents order by id', [])).toEqual([{ id: 1 }, { id: 2 }]);
    expect(() => reader?.all('insert into parents (name) values (?) returning id', ['mallory'])).toThrow(/readonly|read-only/i);
  });
});

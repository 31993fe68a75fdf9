import type { Kysely, Selectable } from 'kysely';
import type { Dialect } from '../db/database.js';
import type { ApiKeysTable, Tables } from '../db/tables.js';

export type ApiKeyRow = Selectable<ApiKeysTable>;

/** Within a transaction: serialises key creation per user, so a count check cannot race. */
export async function lockUser(trx: Kysely<Tables>, dialect: Dialect, userId: string): Promise<void> {
  // SQLite runs one write transaction at a time already; PostgreSQL needs the row lock.
  // NO KEY UPDATE, not UPDATE: foreign-key checks on rows pointing at the user take KEY
  // SHARE locks, and a concurrent decision on an activation would otherwise deadlock.
  if (dialect !== 'postgres') return;
  await trx.selectFrom('users').select('id').where('id', '=', userId).forNoKeyUpdate().execute();
}

export async function countLiveKeys(db: Kysely<Tables>, userId: string): Promise<number> {
  const row = await db
    .selectFrom('api_keys')
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function insertApiKey(db: Kysely<Tables>, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

export function listLiveKeys(db: Kysely<Tables>, userId: string): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

/** Revokes one of the user's live keys; false when there is none by that id. */
export async function revokeKey(db: Kysely<Tables>, userId: string, keyId: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: now })
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

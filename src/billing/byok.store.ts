import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';

export function byokOf(db: Kysely<Tables>, userId: string) {
  return db.selectFrom('users').select(['byok_preview', 'byok_provider']).where('id', '=', userId).executeTakeFirst();
}

/** Stores a sealed key; false when there is no such user. */
export async function setByok(
  db: Kysely<Tables>,
  userId: string,
  key: { sealed: string; preview: string; provider: string },
): Promise<boolean> {
  const updated = await db
    .updateTable('users')
    .set({ byok_sealed: key.sealed, byok_preview: key.preview, byok_provider: key.provider })
    .where('id', '=', userId)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

export async function clearByok(db: Kysely<Tables>, userId: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ byok_sealed: null, byok_preview: null, byok_provider: null })
    .where('id', '=', userId)
    .execute();
}

/** The sealed key and its provider, for the runs that ride on it. */
export function sealedByokOf(db: Kysely<Tables>, userId: string) {
  return db.selectFrom('users').select(['byok_sealed', 'byok_provider']).where('id', '=', userId).executeTakeFirst();
}

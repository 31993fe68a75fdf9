import type { Kysely } from 'kysely';
import type { Tables } from '../db/tables.js';

export async function setPasswordHash(db: Kysely<Tables>, userId: string, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', userId).execute();
}

/** A person's live sessions, the newest first. */
export function liveSessions(db: Kysely<Tables>, userId: string, nowIso: string) {
  return db
    .selectFrom('auth_tokens')
    .select(['id', 'active_workspace_id', 'created_at', 'expires_at'])
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', nowIso)
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

/** Revokes the person's live sessions but `keep`; the ids it revoked. */
export async function revokeSessionsOf(db: Kysely<Tables>, userId: string, nowIso: string, keep?: string): Promise<string[]> {
  let query = db
    .updateTable('auth_tokens')
    .set({ revoked_at: nowIso })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null);
  if (keep !== undefined) query = query.where('id', '!=', keep);
  return (await query.returning('id').execute()).map((row) => row.id);
}

/** Revokes one of the person's sessions; false when they have no such live session. */
export async function revokeSessionOf(db: Kysely<Tables>, userId: string, sessionId: string, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('auth_tokens')
    .set({ revoked_at: nowIso })
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function insertPasswordReset(
  db: Kysely<Tables>,
  reset: { id: string; userId: string; tokenHash: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .insertInto('password_resets')
    .values({
      id: reset.id,
      user_id: reset.userId,
      token_hash: reset.tokenHash,
      created_at: reset.createdAt,
      expires_at: reset.expiresAt,
      used_at: null,
    })
    .execute();
}

/**
 * Uses a reset link: marks it used if it is unused and unexpired, in the same statement,
 * so two uses racing cannot both succeed. The person it resets, or undefined.
 */
export async function useResetToken(db: Kysely<Tables>, tokenHash: string, nowIso: string): Promise<string | undefined> {
  const row = await db
    .updateTable('password_resets')
    .set({ used_at: nowIso })
    .where('token_hash', '=', tokenHash)
    .where('used_at', 'is', null)
    .where('expires_at', '>', nowIso)
    .returning('user_id')
    .executeTakeFirst();
  return row?.user_id;
}

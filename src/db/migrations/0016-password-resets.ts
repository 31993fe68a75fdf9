import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

/**
 * One-time password reset links (issue 28): an operator makes one for a person who forgot
 * their password. Only the token's hash is kept; a link is used once, within its hour.
 */
export function passwordResetsMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('password_resets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addColumn('expires_at', t.timestamp, (c) => c.notNull())
        .addColumn('used_at', t.timestamp)
        .execute();
    },
  };
}

import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

/**
 * Credit holds (issue 25): before a house-key model call, an upper estimate of its cost is
 * held against the payer's balance, so concurrent calls can never spend more than it.
 * `users.held` is the sum of the user's holds, beside the balance they are taken from; a
 * `credit_holds` row says whose call holds what and until when, so a hold a crash left
 * behind is let go. `thread_turn_claims` counts a person's thread turns in progress.
 */
export function creditHoldsMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('users')
        .addColumn('held', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .createTable('credit_holds')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('amount', 'integer', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('node_id', 'text', (c) => c.notNull())
        .addColumn('expires_at', t.timestamp, (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('credit_holds_by_user').on('credit_holds').columns(['user_id', 'expires_at']).execute();
      await db.schema.createIndex('credit_holds_by_node').on('credit_holds').column('node_id').execute();
      await db.schema
        .createTable('thread_turn_claims')
        .addColumn('thread_id', 'text', (c) => c.notNull().references('agent_threads.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('claimed_at', t.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint('thread_turn_claims_pk', ['thread_id', 'user_id'])
        .execute();
      await db.schema.createIndex('thread_turn_claims_by_user').on('thread_turn_claims').column('user_id').execute();
    },
  };
}

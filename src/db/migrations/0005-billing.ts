import { type Kysely, type Migration, sql } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export function billingMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      // The balance is a cache of the user's transactions, kept in step in the same transactions.
      await db.schema
        .alterTable('users')
        .addColumn('balance', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema
        .alterTable('users')
        .addColumn('total_spent', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.alterTable('users').addColumn('subscription_expires_at', t.timestamp).execute();
      await db.schema.alterTable('users').addColumn('site_license_until', t.timestamp).execute();
      await db.schema.alterTable('users').addColumn('byok_sealed', 'text').execute();
      await db.schema.alterTable('users').addColumn('byok_preview', 'text').execute();
      await db.schema.alterTable('users').addColumn('byok_provider', 'text').execute();

      await db.schema
        .createTable('transactions')
        .addColumn('id', t.serial, (c) => (t.serial === 'integer' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('amount', 'integer', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('execution_id', 'text')
        .addColumn('payment_session_id', 'text')
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('transactions_by_user').on('transactions').columns(['user_id', 'id']).execute();
      // A run is charged at most once.
      await db.schema
        .createIndex('transactions_one_charge_per_run')
        .on('transactions')
        .column('execution_id')
        .unique()
        .where(sql.ref('execution_id'), 'is not', null)
        .execute();

      // Each checkout session (or subscription invoice) grants credits at most once.
      await db.schema
        .createIndex('transactions_one_grant_per_payment')
        .on('transactions')
        .column('payment_session_id')
        .unique()
        .where(sql.ref('type'), '=', sql.lit('purchase'))
        .execute();

      await db.schema
        .createTable('checkout_sessions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('pack_id', 'text')
        .addColumn('credits', 'integer', (c) => c.notNull())
        .addColumn('price_cents', 'integer', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('success_url', 'text', (c) => c.notNull())
        .addColumn('cancel_url', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('payment_reference', 'text')
        .addColumn('credits_refunded', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addColumn('paid_at', t.timestamp)
        .execute();
      await db.schema.createIndex('checkout_sessions_by_payment').on('checkout_sessions').column('payment_reference').execute();

      // Every provider event is acted on at most once: its id is claimed in the transaction that acts.
      await db.schema
        .createTable('payment_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('received_at', t.timestamp, (c) => c.notNull())
        .execute();
    },
  };
}

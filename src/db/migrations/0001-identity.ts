import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

export function identityMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('workspaces')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text')
        .addColumn('is_personal', 'integer', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('personal_workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('workspace_members')
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint('workspace_members_pk', ['workspace_id', 'user_id'])
        .execute();
      await db.schema.createIndex('workspace_members_user').on('workspace_members').column('user_id').execute();

      await db.schema
        .createTable('auth_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('active_workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addColumn('expires_at', t.timestamp, (c) => c.notNull())
        .addColumn('revoked_at', t.timestamp)
        .execute();

      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('key_preview', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addColumn('last_used_at', t.timestamp)
        .addColumn('revoked_at', t.timestamp)
        .execute();
      await db.schema.createIndex('api_keys_user').on('api_keys').columns(['user_id', 'revoked_at']).execute();

      await db.schema
        .createTable('activations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('device_code_hash', 'text', (c) => c.notNull().unique())
        .addColumn('user_code', 'text', (c) => c.notNull().unique())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('client_label', 'text', (c) => c.notNull())
        .addColumn('client_ua', 'text', (c) => c.notNull())
        .addColumn('client_ip', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addColumn('expires_at', t.timestamp, (c) => c.notNull())
        .addColumn('decided_by', 'text', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('decided_at', t.timestamp)
        .addColumn('workspace_id', 'text', (c) => c.references('workspaces.id').onDelete('set null'))
        .addColumn('api_key_id', 'text', (c) => c.references('api_keys.id').onDelete('set null'))
        .addColumn('sealed_key', 'text')
        .addColumn('claimed_at', t.timestamp)
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('activations_expiry').on('activations').columns(['status', 'expires_at']).execute();
    },
  };
}

import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

/**
 * Scoped consent (DESIGN §11): a key asks its owner to narrow its scopes, and the owner
 * approves or denies. `api_keys.scopes` holds the approved set (space-separated); null
 * means the key was never narrowed and keeps the person's full access.
 */
export function agentConnectMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('api_keys').addColumn('scopes', 'text').execute();
      await db.schema
        .createTable('agent_connect_requests')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('label', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addColumn('expires_at', t.timestamp, (c) => c.notNull())
        .addColumn('decided_at', t.timestamp)
        .execute();
      await db.schema.createIndex('agent_connect_requests_by_key').on('agent_connect_requests').column('key_id').execute();
    },
  };
}

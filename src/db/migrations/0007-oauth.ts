import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

/**
 * The OAuth authorization server's storage (DESIGN §11). `oauth_records` is what
 * oidc-provider's adapter keeps: one row per model instance (codes, tokens, grants,
 * sessions, interactions, registered clients), its payload as JSON, with the few fields
 * the adapter looks rows up by. `oauth_grant_workspaces` is ours: the workspace a person
 * chose at consent, which every token of the grant acts in.
 */
export function oauthMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('oauth_records')
        .addColumn('model', 'text', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('grant_id', 'text')
        .addColumn('uid', 'text')
        .addColumn('expires_at', t.timestamp)
        .addColumn('consumed_at', t.timestamp)
        .addPrimaryKeyConstraint('oauth_records_pkey', ['model', 'id'])
        .execute();
      await db.schema.createIndex('oauth_records_by_grant').on('oauth_records').column('grant_id').execute();
      await db.schema.createIndex('oauth_records_by_uid').on('oauth_records').column('uid').execute();
      await db.schema.createIndex('oauth_records_by_expiry').on('oauth_records').column('expires_at').execute();

      await db.schema
        .createTable('oauth_grant_workspaces')
        .addColumn('grant_id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .execute();
    },
  };
}

import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

/**
 * Invitations to a team workspace by email (issue 51): the link's token is kept only as a
 * hash; an invitation is accepted once, expires, or is revoked, and each leaves its time.
 */
export function workspaceInvitationsMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('workspace_invitations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('invited_by', 'text', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addColumn('expires_at', t.timestamp, (c) => c.notNull())
        .addColumn('accepted_at', t.timestamp)
        .addColumn('accepted_by', 'text', (c) => c.references('users.id').onDelete('set null'))
        .addColumn('revoked_at', t.timestamp)
        .execute();
      await db.schema
        .createIndex('workspace_invitations_workspace')
        .on('workspace_invitations')
        .columns(['workspace_id', 'email'])
        .execute();
    },
  };
}

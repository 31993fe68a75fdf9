import type { Kysely, Migration } from 'kysely';

/**
 * Whose turn asked for a thread approval (issue 25): threads are the workspace's, so every
 * member sees an approval's id; only the asker, or a workspace owner or admin, may answer
 * it. Approvals stored before this have no asker, and only an owner or admin answers them.
 */
export const approvalAskersMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('thread_approvals').addColumn('requested_by', 'text').execute();
  },
};

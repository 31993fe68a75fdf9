import type { Kysely, Migration } from 'kysely';

/**
 * The node that started a run owns it (DESIGN §12): at start-up a node ends only the runs
 * it owned, not the ones other nodes of the cluster are running. Null: started before
 * nodes were named, recovered by whichever node starts first.
 */
export const runOwnerMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('executions').addColumn('owner_node', 'text').execute();
  },
};

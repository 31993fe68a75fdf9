import type { Kysely, Migration } from 'kysely';

/**
 * Which attempt of its owner node a queued run belongs to. The node alone was not enough: a
 * node the cluster took for silent can be handed the same run again while its first attempt
 * still runs, and both attempts then passed the journal's fence and charged. Null: a run
 * started without the queue (one node), or taken before attempts were named.
 */
export const runOwnerAttemptMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('executions').addColumn('owner_attempt', 'text').execute();
  },
};

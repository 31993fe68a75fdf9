import type { Kysely, Migration } from 'kysely';
import type { ColumnTypes } from '../column-types.js';

/**
 * Distributed mode (DESIGN §12): nodes say they are alive, so the runs of one that went
 * silent can be ended by another; and work done once for the whole cluster (sweeps) is
 * held under a lease.
 */
export function clusterMigration(t: ColumnTypes): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('cluster_nodes')
        .addColumn('node_id', 'text', (c) => c.primaryKey())
        .addColumn('seen_at', t.timestamp, (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('cluster_leases')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', t.timestamp, (c) => c.notNull())
        .execute();
    },
  };
}

import { type Kysely, type Migration, sql } from 'kysely';
import type { ColumnTypes } from '../column-types.js';
import type { Dialect } from '../database.js';

/**
 * Events keep only their rendered frame (the payload is inside it); on SQLite the table is
 * clustered on (execution_id, sequence) with WITHOUT ROWID, so reading a run of events is
 * one walk of the primary key. Blocks of joined frames (see event-blocks.store.ts) are new;
 * existing executions simply have none and replay event by event.
 */
export function eventFramesMigration(t: ColumnTypes, dialect: Dialect): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('execution_event_blocks')
        .addColumn('execution_id', 'text', (c) => c.notNull().references('executions.execution_id').onDelete('cascade'))
        .addColumn('block', 'integer', (c) => c.notNull())
        .addColumn('frames', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('execution_event_blocks_pk', ['execution_id', 'block'])
        .execute();
      if (dialect === 'postgres') {
        await db.schema.alterTable('execution_events').dropColumn('payload').execute();
        return;
      }
      await db.schema
        .createTable('execution_events_clustered')
        .addColumn('execution_id', 'text', (c) => c.notNull().references('executions.execution_id').onDelete('cascade'))
        .addColumn('sequence', 'integer', (c) => c.notNull())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('frame', 'text', (c) => c.notNull())
        .addColumn('created_at', t.timestamp, (c) => c.notNull())
        .addPrimaryKeyConstraint('execution_events_pk', ['execution_id', 'sequence'])
        .modifyEnd(sql`without rowid`)
        .execute();
      await sql`insert into execution_events_clustered (execution_id, sequence, id, type, frame, created_at)
        select execution_id, sequence, id, type, frame, created_at from execution_events`.execute(db);
      await db.schema.dropTable('execution_events').execute();
      await db.schema.alterTable('execution_events_clustered').renameTo('execution_events').execute();
    },
  };
}

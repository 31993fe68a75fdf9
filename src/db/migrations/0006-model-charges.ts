import { type Kysely, type Migration, sql } from 'kysely';

/**
 * An agent run is charged for its model calls as it goes, beside the price held at its
 * start. `model_call` numbers an execution's charges (0: the price, n: its nth model call,
 * counted across the runs of the execution), and the one-charge-per-run index becomes one
 * charge per execution and number.
 */
export const modelChargesMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('transactions')
      .addColumn('model_call', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.dropIndex('transactions_one_charge_per_run').execute();
    await db.schema
      .createIndex('transactions_one_charge_per_call')
      .on('transactions')
      .columns(['execution_id', 'model_call'])
      .unique()
      .where(sql.ref('execution_id'), 'is not', null)
      .execute();
  },
};

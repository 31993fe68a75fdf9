import { type Kysely, sql } from 'kysely';
import type { Tables } from '../db/tables.js';

/** The cheapest question the database can answer: whether it answers at all. */
export async function pingDatabase(db: Kysely<Tables>): Promise<void> {
  await sql`select 1`.execute(db);
}

export interface LedgerTotal {
  type: string;
  /** Ds added to balances (purchases, grants, refunds) and taken from them (run prices, model calls). */
  granted: number;
  debited: number;
  grants: number;
  debits: number;
}

/**
 * The ledger's running totals by transaction type. Rows are only ever added, so each total
 * only grows: it is a counter, kept by the database for the whole cluster.
 */
export async function ledgerTotals(db: Kysely<Tables>): Promise<LedgerTotal[]> {
  const rows = await db
    .selectFrom('transactions')
    .select([
      'type',
      sql<string | number>`coalesce(sum(case when amount > 0 then amount else 0 end), 0)`.as('granted'),
      sql<string | number>`coalesce(sum(case when amount < 0 then -amount else 0 end), 0)`.as('debited'),
      sql<string | number>`coalesce(sum(case when amount > 0 then 1 else 0 end), 0)`.as('grants'),
      sql<string | number>`coalesce(sum(case when amount < 0 then 1 else 0 end), 0)`.as('debits'),
    ])
    .groupBy('type')
    .execute();
  // PostgreSQL hands sums back as text (numeric); SQLite as numbers.
  return rows.map((row) => ({
    type: row.type,
    granted: Number(row.granted),
    debited: Number(row.debited),
    grants: Number(row.grants),
    debits: Number(row.debits),
  }));
}

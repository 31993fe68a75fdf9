import { type Kysely, type Migration, sql } from 'kysely';

/**
 * `users.total_spent` counted a run's charges and kept them when the run was refunded
 * (issue 50, item 8). Refunds now count back as they are made; this recomputes the total
 * once from the ledger, which is the truth: the charges and refunds of executions, net,
 * plus usage that belongs to no execution (an agent thread's model calls). A pack refund
 * taken back (a usage row of a payment session) is not spending, as the debit never
 * counted it either.
 */
export const spentNetOfRefundsMigration: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`
      update users set total_spent = coalesce((
        select -sum(t.amount) from transactions t
        where t.user_id = users.id
          and (t.execution_id is not null or (t.type = 'usage' and t.payment_session_id is null))
      ), 0)
    `.execute(db);
  },
};

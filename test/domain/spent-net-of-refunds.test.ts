import { expect } from 'vitest';
import { spentNetOfRefundsMigration } from '../../src/db/migrations/0021-spent-net-of-refunds.js';
import { runSteps } from '../../src/db/statement-steps.js';
import { findUserById } from '../../src/identity/users.store.js';
import { chargeRun, chargeUsageUpTo, grant, refundToExecution, takeBack } from '../../src/ledger/ledger.store.js';
import { withDomain } from '../helpers/domain.js';
import { anExecution, aUser } from '../helpers/rows.js';

const it = withDomain();
const NOW = '2026-01-01T00:00:00.000Z';

it('a refund counts back out of total_spent, and the migration recomputes totals refunds had left behind', async ({ db }) => {
  const user = await aUser(db, { credits: 10 });
  const refunded = await anExecution(db, { user });
  const kept = await anExecution(db, { user });
  const entry = { userId: user.id, description: 'run', nowIso: NOW };
  await db.transaction().execute(async (trx) => {
    await chargeRun(trx, { ...entry, amount: 2, executionId: refunded.execution_id });
    await chargeRun(trx, { ...entry, amount: 1, executionId: kept.execution_id });
    await refundToExecution(trx, { ...entry, amount: 2, executionId: refunded.execution_id });
    // A thread's model call (no execution) is spending; a pack refund taken back is not.
    await runSteps(trx, chargeUsageUpTo(trx, { ...entry, due: 3 }));
    await grant(trx, { ...entry, amount: 5, paymentSessionId: 'cs_1' });
    await takeBack(trx, { ...entry, due: 5, paymentSessionId: 'cs_1' });
  });
  const spent = async () => (await findUserById(db, user.id))?.total_spent;
  expect(await spent()).toBe(4);

  // What the code before this change left: the refunded 2 still counted.
  await db.updateTable('users').set({ total_spent: 6 }).where('id', '=', user.id).execute();
  await spentNetOfRefundsMigration.up(db);
  expect(await spent()).toBe(4);
  // A user who never spent anything stays at 0.
  const idle = await aUser(db, { credits: 3 });
  await spentNetOfRefundsMigration.up(db);
  expect((await findUserById(db, idle.id))?.total_spent).toBe(0);
});

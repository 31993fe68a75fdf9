import type { Kysely } from 'kysely';
import { describe, expect } from 'vitest';
import { requireCanExecute } from '../../src/billing/charges.js';
import { takeHold } from '../../src/billing/credit-holds.store.js';
import { runSteps } from '../../src/db/statement-steps.js';
import type { Tables } from '../../src/db/tables.js';
import { findUserById } from '../../src/identity/users.store.js';
import { chargeRun, grant, recentTransactions, takeBack } from '../../src/ledger/ledger.store.js';
import { withDomain } from '../helpers/domain.js';
import { anExecution, aUser } from '../helpers/rows.js';

const it = withDomain();
const NOW = '2026-01-01T00:00:00.000Z';

/** The cached balance and the sum of the transactions that explain it. */
async function books(db: Kysely<Tables>, userId: string): Promise<{ balance: number; sum: number }> {
  const user = await findUserById(db, userId);
  const transactions = await recentTransactions(db, userId, 1000);
  return { balance: user?.balance ?? Number.NaN, sum: transactions.reduce((total, entry) => total + entry.amount, 0) };
}

describe('the ledger', () => {
  it('writes sign-up credits as a purchase, so the balance is the sum from the start', async ({ db }) => {
    const user = await aUser(db, { credits: 7 });
    expect(await books(db, user.id)).toEqual({ balance: 7, sum: 7 });
    expect((await recentTransactions(db, user.id, 10)).map((entry) => [entry.type, entry.amount])).toEqual([['purchase', 7]]);
  });

  it('charges a run only when the balance covers it, and a refused charge changes nothing', async ({ db }) => {
    const user = await aUser(db, { credits: 3 });
    const execution = await anExecution(db, { user });
    const charge = (amount: number) =>
      db
        .transaction()
        .execute((trx) =>
          chargeRun(trx, { userId: user.id, amount, executionId: execution.execution_id, description: 'run', nowIso: NOW }),
        );
    expect(await charge(5)).toBe(false);
    expect(await books(db, user.id)).toEqual({ balance: 3, sum: 3 });
    expect(await charge(2)).toBe(true);
    expect(await books(db, user.id)).toEqual({ balance: 1, sum: 1 });
    expect((await findUserById(db, user.id))?.total_spent).toBe(2);
  });

  it('lets two concurrent charges spend the same credits only once', async ({ db }) => {
    const user = await aUser(db, { credits: 4 });
    const runs = await Promise.all([anExecution(db, { user }), anExecution(db, { user, workspaceId: user.workspaceId })]);
    const charged = await Promise.all(
      runs.map((run) =>
        db
          .transaction()
          .execute((trx) =>
            chargeRun(trx, { userId: user.id, amount: 3, executionId: run.execution_id, description: 'run', nowIso: NOW }),
          ),
      ),
    );
    expect(charged.filter(Boolean)).toHaveLength(1);
    expect(await books(db, user.id)).toEqual({ balance: 1, sum: 1 });
  });

  it('takes back no more than the balance, and writes what it could not take into the description', async ({ db }) => {
    const user = await aUser(db, { credits: 2 });
    await db
      .transaction()
      .execute((trx) => grant(trx, { userId: user.id, amount: 3, description: 'pack', paymentSessionId: 'cs_1', nowIso: NOW }));
    const taken = await db
      .transaction()
      .execute((trx) => takeBack(trx, { userId: user.id, due: 8, description: 'refund', paymentSessionId: 'cs_1', nowIso: NOW }));
    expect(taken).toBe(5);
    expect(await books(db, user.id)).toEqual({ balance: 0, sum: 0 });
    const [refund] = await recentTransactions(db, user.id, 1);
    expect(refund).toMatchObject({ type: 'usage', amount: -5, payment_session_id: 'cs_1' });
    expect(refund?.description).toBe('refund (3 Ds could not be taken back: balance too low)');
  });

  it('refuses a grant or a charge that is not positive', async ({ db }) => {
    const user = await aUser(db);
    await expect(
      db
        .transaction()
        .execute((trx) => grant(trx, { userId: user.id, amount: 0, description: 'x', paymentSessionId: null, nowIso: NOW })),
    ).rejects.toThrow('a grant must be positive');
    await expect(
      db
        .transaction()
        .execute((trx) => chargeRun(trx, { userId: user.id, amount: -1, executionId: 'x', description: 'x', nowIso: NOW })),
    ).rejects.toThrow('a charge must be positive');
    expect(await books(db, user.id)).toEqual({ balance: 0, sum: 0 });
  });

  it('refuses a priced run when credits held for model calls under way leave too little free, and says so', async ({
    ctx,
    db,
  }) => {
    const user = await aUser(db, { credits: 5 });
    const payer = { userId: user.id, isAdmin: false };
    const hold = (id: string, amount: number) =>
      db.transaction().execute((trx) =>
        runSteps(
          trx,
          takeHold(trx, {
            id,
            userId: user.id,
            amount,
            owner: 'turn t1',
            nodeId: 'node-1',
            nowIso: NOW,
            expiresIso: '2099-01-01T00:00:00.000Z',
          }),
        ),
      );
    expect(await hold('h1', 3)).toBe(true);
    await expect(requireCanExecute(ctx, payer, 2)).resolves.toBeUndefined();
    expect(await hold('h2', 1)).toBe(true);
    await expect(requireCanExecute(ctx, payer, 2)).rejects.toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      message:
        'Not enough free credits to run this skill: 4 Ds are held for your runs and replies under way. Wait for them to finish, or buy a credit pack',
    });
    await expect(requireCanExecute(ctx, payer, 6)).rejects.toMatchObject({
      message: 'Not enough credits to run this skill: buy a credit pack first',
    });
    await expect(requireCanExecute(ctx, { ...payer, isAdmin: true }, 6)).resolves.toBeUndefined();
  });
});

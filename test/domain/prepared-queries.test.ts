import { describe, expect } from 'vitest';
import { preparedRows, preparedWrite } from '../../src/db/prepared-lookup.js';
import { withDomain } from '../helpers/domain.js';
import { aUser } from '../helpers/rows.js';

const it = withDomain();

describe('a query compiled once and run with new arguments', () => {
  it('runs each time with that time’s arguments, in a transaction as outside one', async ({ ctx }) => {
    const [first, second] = [await aUser(ctx.db), await aUser(ctx.db)];
    const emailOf = preparedRows((db, id: string) => db.selectFrom('users').select('email').where('id', '=', id));
    const addBalance = preparedWrite((db, id: string, amount: number) =>
      db
        .updateTable('users')
        .set((eb) => ({ balance: eb('balance', '+', amount) }))
        .where('id', '=', id),
    );
    expect(await emailOf(ctx.db, first.id)).toEqual([{ email: first.email }]);
    expect(await emailOf(ctx.db, second.id)).toEqual([{ email: second.email }]);
    const before = await ctx.db.selectFrom('users').select('balance').where('id', '=', second.id).executeTakeFirstOrThrow();
    await ctx.db.transaction().execute((trx) => addBalance(trx, second.id, 7));
    await addBalance(ctx.db, first.id, 0);
    const after = await ctx.db.selectFrom('users').select('balance').where('id', '=', second.id).executeTakeFirstOrThrow();
    expect(Number(after.balance) - Number(before.balance)).toBe(7);
  });

  it('refuses an argument used in two places, which would run the second with the compile-time marker', async ({ ctx }) => {
    const user = await aUser(ctx.db);
    const twice = preparedWrite((db, id: string, amount: number) =>
      db
        .updateTable('users')
        .set((eb) => ({ held: eb('held', '+', amount) }))
        .where('id', '=', id)
        .where('balance', '>=', amount),
    );
    expect(() => twice(ctx.db, user.id, 1)).toThrow(/only one query parameter/);
  });
});

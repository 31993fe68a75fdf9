import { type Kysely, type Selectable, sql } from 'kysely';
import { lockingRead } from '../db/locks.js';
import { preparedStatement, preparedWrite } from '../db/prepared-lookup.js';
import { runSteps, type Steps, statement } from '../db/statement-steps.js';
import type { Tables } from '../db/tables.js';
import type { TransactionsTable } from '../db/tables-billing.js';

type TransactionRow = Selectable<TransactionsTable>;

/**
 * The ledger. Transactions are the truth and are only ever added; a user's `balance` is a
 * cache of their sum. Every function here runs inside the caller's transaction and moves
 * the balance and writes the transaction that explains it together, so the two never
 * disagree. Debits never take a balance below zero.
 */

interface Entry {
  userId: string;
  description: string;
  nowIso: string;
}

const addToBalance = preparedWrite((db, userId: string, amount: number) =>
  db
    .updateTable('users')
    .set((eb) => ({ balance: eb('balance', '+', amount) }))
    .where('id', '=', userId),
);

const insertPurchase = preparedWrite(
  (db, userId: string, amount: number, description: string, paymentSessionId: string | null, nowIso: string) =>
    db.insertInto('transactions').values({
      user_id: userId,
      amount,
      type: 'purchase',
      description,
      execution_id: null,
      payment_session_id: paymentSessionId,
      created_at: nowIso,
    }),
);

/** Adds credits (a purchase or a grant). */
export async function grant(trx: Kysely<Tables>, entry: Entry & { amount: number; paymentSessionId: string | null }) {
  if (!(entry.amount > 0)) throw new Error('a grant must be positive');
  await addToBalance(trx, entry.userId, entry.amount);
  await insertPurchase(trx, entry.userId, entry.amount, entry.description, entry.paymentSessionId, entry.nowIso);
}

/** A run's charge given back: to the balance, and out of what the user has spent (the amount twice: one use each). */
const refundToBalance = preparedWrite((db, userId: string, returned: number, unspent: number) =>
  db
    .updateTable('users')
    .set((eb) => ({ balance: eb('balance', '+', returned), total_spent: eb('total_spent', '-', unspent) }))
    .where('id', '=', userId),
);

/**
 * Gives an execution's run back what it was charged: a purchase row of the execution, with
 * the execution's next charge number, so what the execution was charged, net, leaves it out
 * (a run refunded and then run again is not counted, nor refunded, twice). `total_spent`
 * counted the charges, so it counts the refund back: a refunded run was not spent.
 */
export async function refundToExecution(
  trx: Kysely<Tables>,
  entry: Entry & { amount: number; executionId: string },
): Promise<void> {
  if (!(entry.amount > 0)) throw new Error('a refund must be positive');
  await refundToBalance(trx, entry.userId, entry.amount, entry.amount);
  await insertExecutionEntry(trx, { ...entry, type: 'purchase' });
}

/**
 * Charges a run. The balance check and the debit are one conditional update, so two runs
 * of one user in different workspaces cannot both spend the same credits, nor the credits
 * held for model calls under way (credit-holds.store.ts). Returns whether it was charged
 * (false: not enough credits, and nothing changed).
 */
export async function chargeRun(trx: Kysely<Tables>, entry: Entry & { amount: number; executionId: string }): Promise<boolean> {
  if (!(entry.amount > 0)) throw new Error('a charge must be positive');
  const debited = await trx
    .updateTable('users')
    .set((eb) => ({ balance: eb('balance', '-', entry.amount), total_spent: eb('total_spent', '+', entry.amount) }))
    .where('id', '=', entry.userId)
    .where((eb) => eb(eb('balance', '-', eb.ref('held')), '>=', entry.amount))
    .executeTakeFirst();
  if (Number(debited.numUpdatedRows) !== 1) return false;
  await insertExecutionEntry(trx, { ...entry, amount: -entry.amount, type: 'usage' });
  return true;
}

/** Writes a row of an execution's charges (negative) or refunds (positive), as its next numbered entry. */
async function insertExecutionEntry(
  trx: Kysely<Tables>,
  entry: Entry & { amount: number; executionId: string; type: 'usage' | 'purchase' },
): Promise<void> {
  await trx
    .insertInto('transactions')
    .values({
      user_id: entry.userId,
      amount: entry.amount,
      type: entry.type,
      description: entry.description,
      execution_id: entry.executionId,
      payment_session_id: null,
      created_at: entry.nowIso,
      model_call: await nextChargeNumber(trx, entry.executionId),
    })
    .execute();
}

/**
 * The number of an execution's next run price: 0 for its first run, else one past its last
 * charge, since every run a user.message starts is priced and the ledger keeps one charge
 * per execution and number.
 */
async function nextChargeNumber(trx: Kysely<Tables>, executionId: string): Promise<number> {
  const row = await trx
    .selectFrom('transactions')
    .select((eb) => eb.fn.max<number | null>('model_call').as('last'))
    .where('execution_id', '=', executionId)
    .executeTakeFirst();
  return row?.last === null || row?.last === undefined ? 0 : Number(row.last) + 1;
}

/**
 * Takes back up to `due` credits (a refund), never below a zero balance; what could not
 * be taken is written into the description. Returns the amount taken.
 */
export async function takeBack(trx: Kysely<Tables>, entry: Entry & { due: number; paymentSessionId: string }): Promise<number> {
  const taken = await runSteps(trx, debitUpTo(trx, entry.userId, entry.due, 'refund'));
  const shortfall = entry.due - taken;
  await trx
    .insertInto('transactions')
    .values({
      user_id: entry.userId,
      amount: -taken,
      type: 'usage',
      description:
        shortfall > 0 ? `${entry.description} (${shortfall} Ds could not be taken back: balance too low)` : entry.description,
      execution_id: null,
      payment_session_id: entry.paymentSessionId,
      created_at: entry.nowIso,
    })
    .execute();
  return taken;
}

// A model call's charge runs these: built and compiled once (prepared-lookup.ts).
const lockedBalanceOf = preparedStatement((db, userId: string) =>
  lockingRead(db, db.selectFrom('users').select('balance').where('id', '=', userId)),
);

const debitBalance = preparedStatement((db, userId: string, taken: number, spent: number, releasing: number) =>
  db
    .updateTable('users')
    .set((eb) => ({
      balance: eb('balance', '-', taken),
      total_spent: eb('total_spent', '+', spent),
      held: eb('held', '-', releasing),
    }))
    .where('id', '=', userId),
);

/** One past the execution's last numbered charge is read by the insert itself. */
const insertModelCallCharge = preparedStatement(
  (db, userId: string, amount: number, description: string, executionId: string, nowIso: string, sameExecutionId: string) =>
    db.insertInto('transactions').values((eb) => ({
      user_id: userId,
      amount,
      type: 'usage',
      description,
      execution_id: executionId,
      payment_session_id: null,
      created_at: nowIso,
      model_call: eb
        .selectFrom('transactions')
        .select(sql<number>`coalesce(max(model_call), 0) + 1`.as('next'))
        .where('execution_id', '=', sameExecutionId),
    })),
);

/**
 * Takes up to `due` Ds off a balance, never below zero, under a lock on the user's row;
 * returns what was taken. Spending counts towards `total_spent`; a refund taken back does not.
 * `releasing`: what a model call's hold, taken out in this transaction, gave back to the
 * user's `held`, lowered in the same update.
 */
function* debitUpTo(db: Kysely<Tables>, userId: string, due: number, kind: 'spent' | 'refund', releasing = 0): Steps<number> {
  const [row] = (yield* statement(lockedBalanceOf(db, userId))).rows;
  if (!row) throw new Error(`user ${userId} is gone`);
  const taken = Math.max(0, Math.min(row.balance, due));
  if (taken === 0 && releasing === 0) return 0;
  yield* statement(debitBalance(db, userId, taken, kind === 'spent' ? taken : 0, releasing));
  return taken;
}

export function recentTransactions(db: Kysely<Tables>, userId: string, limit: number): Promise<TransactionRow[]> {
  return db.selectFrom('transactions').selectAll().where('user_id', '=', userId).orderBy('id', 'desc').limit(limit).execute();
}

/** What an execution was charged, its prices and its model calls, less its refunds (a positive number of Ds). */
export async function chargedFor(db: Kysely<Tables>, executionId: string): Promise<number> {
  const row = await db
    .selectFrom('transactions')
    .select((eb) => eb.fn.sum<number | string | null>('amount').as('total'))
    .where('execution_id', '=', executionId)
    .executeTakeFirst();
  return -Number(row?.total ?? 0);
}

/**
 * Charges one model call of an execution: up to `due` Ds, never below a zero balance, as the
 * execution's next numbered charge (its price is 0). Returns the Ds taken; nothing is
 * written when nothing is taken.
 */
export function* chargeModelCall(
  db: Kysely<Tables>,
  entry: Entry & { due: number; executionId: string; releasing?: number },
): Steps<number> {
  // The user's row is locked first, so no other charge of theirs takes the same number.
  const taken = yield* debitUpTo(db, entry.userId, entry.due, 'spent', entry.releasing);
  if (taken === 0) return 0;
  const { userId, description, executionId, nowIso } = entry;
  yield* statement(insertModelCallCharge(db, userId, -taken, description, executionId, nowIso, executionId));
  return taken;
}

/**
 * Charges usage that belongs to no execution (an agent thread's model call): up to `due`
 * Ds, never below a zero balance, written with execution_id null, so the ledger's
 * one-charge-per-call index (which covers only rows of an execution) does not apply.
 * Returns the Ds taken; nothing is written when nothing is taken.
 */
export function* chargeUsageUpTo(db: Kysely<Tables>, entry: Entry & { due: number; releasing?: number }): Steps<number> {
  const taken = yield* debitUpTo(db, entry.userId, entry.due, 'spent', entry.releasing);
  if (taken === 0) return 0;
  yield* statement(
    db
      .insertInto('transactions')
      .values({
        user_id: entry.userId,
        amount: -taken,
        type: 'usage',
        description: entry.description,
        execution_id: null,
        payment_session_id: null,
        created_at: entry.nowIso,
      })
      .compile(),
  );
  return taken;
}

/** Whether the user's ledger already holds an entry so described (a refund written once). */
export async function hasEntry(db: Kysely<Tables>, userId: string, description: string): Promise<boolean> {
  const row = await db
    .selectFrom('transactions')
    .select('id')
    .where('user_id', '=', userId)
    .where('description', '=', description)
    .executeTakeFirst();
  return row !== undefined;
}

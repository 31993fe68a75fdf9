import type { ColumnType, Generated } from 'kysely';

/* Row types of the ledger, credit holds, checkouts and payment events (the `Tables` of tables.ts lists them all). */

/** Credits held for a house-key model call under way (billing/credit-holds.store.ts). */
export interface CreditHoldsTable {
  id: string;
  user_id: string;
  amount: number;
  /** What the hold is for, as people read it in logs: "run <execution id>" or "turn <thread row id>". */
  owner: string;
  /** The node whose call holds it: at that node's start, its holds are let go. */
  node_id: string;
  /** After this no call can still be waiting on it, so anyone may let it go. */
  expires_at: string;
  created_at: string;
}

export type TransactionType = 'usage' | 'purchase';

/** The ledger: rows are only ever added. */
export interface TransactionsTable {
  id: Generated<number>;
  user_id: string;
  /** Signed Ds: purchases positive, usage negative. */
  amount: number;
  type: TransactionType;
  description: string;
  execution_id: string | null;
  payment_session_id: string | null;
  created_at: string;
  /** Which charge of its execution this is: 0 the run's price, n its nth model call. */
  model_call: ColumnType<number, number | undefined, never>;
}

export type CheckoutKind = 'pack' | 'subscription';

export type CheckoutStatus = 'open' | 'paid' | 'canceled';

/** A checkout started here: what it is for and whom; the provider's events settle it. */
export interface CheckoutSessionsTable {
  /** The provider's session id (ours, for the local checkout). */
  id: string;
  provider: 'stripe' | 'local';
  user_id: string;
  kind: CheckoutKind;
  pack_id: string | null;
  credits: number;
  price_cents: number;
  email: string;
  success_url: string;
  cancel_url: string;
  status: CheckoutStatus;
  /** The provider's payment (a payment intent or subscription), which refunds name. */
  payment_reference: string | null;
  credits_refunded: number;
  created_at: string;
  paid_at: string | null;
  /** A subscription's: when it was cancelled (it renews no more), by its person or at the provider. */
  subscription_cancelled_at: string | null;
}

export interface PaymentEventsTable {
  id: string;
  type: string;
  received_at: string;
}

import type { AppContext } from '../context.js';
import { AppError, InternalError, InvalidInput } from '../errors.js';
import { MODE_INFO, type SubscriptionMode, subscriptionModeOf } from '../identity/subscription-mode.js';
import { standingOf } from '../identity/users.store.js';
import { recentTransactions } from '../ledger/ledger.store.js';
import type { BillingStanding } from '../ports/callers.js';
import type { CreatedCheckout } from '../ports/payments.js';
import { leastFirstCallHold } from '../runtime/agent/model-budget.js';
import { ownModelKey } from './byok.js';
import { creditShortfall } from './charges.js';
import { insertCheckoutSession } from './checkout-sessions.store.js';
import { OFFERED_PACK_IDS, packsFor } from './packs.js';
import type { Payer } from './payer.js';
import { accountOf } from './standing.store.js';

const TRANSACTIONS_SHOWN = 50;

type Reads = Pick<AppContext, 'db' | 'clock'>;
/** What the balance view reads: the account, and for canExecute the payer's own key and the agent settings. */
type BalanceReads = Pick<AppContext, 'db' | 'clock' | 'keys' | 'config'>;
/** What starting a checkout uses: the reads, the provider, and the app's own link scheme. */
type Checkout = Pick<AppContext, 'db' | 'clock' | 'payments' | 'config'>;

/** What canExecute asks a start to afford: a price, then the hold of its first model call. */
export interface StartNeeds {
  price: number;
  firstCallHold: () => Promise<number>;
}

/**
 * canExecute without a skill: whether the caller could start the cheapest priced skill (1 Ds)
 * of the agent kind, whose first model call holds at least the least any house model's
 * first call holds, unless the caller's own key pays for its calls. A skill named in
 * `?skill=` is answered exactly instead (executions/start-needs.ts).
 */
function anyPricedAgentRun(ctx: BalanceReads, caller: Payer): StartNeeds {
  return {
    price: 1,
    firstCallHold: async () => ((await ownModelKey(ctx, caller.userId)) ? 0 : leastFirstCallHold(ctx.config.agent)),
  };
}

/** The standing as stored now (a purchase may have changed it since the credential was cached). */
async function modeNow(ctx: Reads, userId: string): Promise<{ mode: SubscriptionMode; standing: BillingStanding }> {
  const standing = await standingOf(ctx.db, userId);
  return { mode: subscriptionModeOf(standing, ctx.clock.nowMs()), standing };
}

/**
 * The balance, and whether a start would be let through for credits: the same test the
 * start makes (charges.ts creditShortfall), so the view never promises what the start
 * refuses with 402.
 */
export async function balanceView(ctx: BalanceReads, caller: Payer, needs: StartNeeds = anyPricedAgentRun(ctx, caller)) {
  const { balance, totalSpent } = await accountOf(ctx.db, caller.userId);
  const canExecute = (await creditShortfall(ctx, caller, needs.price, needs.firstCallHold)) === undefined;
  return { balance, totalSpent, canExecute, isAdmin: caller.isAdmin };
}

export async function packsView(ctx: Reads, caller: Payer) {
  return { packs: packsFor((await modeNow(ctx, caller.userId)).mode) };
}

export async function transactionsView(ctx: Pick<AppContext, 'db'>, caller: Payer) {
  const rows = await recentTransactions(ctx.db, caller.userId, TRANSACTIONS_SHOWN);
  return {
    transactions: rows.map((row) => ({
      id: row.id,
      userId: row.user_id,
      amount: row.amount,
      type: row.type,
      description: row.description,
      executionId: row.execution_id,
      paymentSessionId: row.payment_session_id,
      createdAt: row.created_at,
    })),
  };
}

export async function tierView(ctx: Reads & Pick<AppContext, 'payments'>, caller: Payer) {
  const { mode, standing } = await modeNow(ctx, caller.userId);
  return {
    tier: mode,
    info: MODE_INFO[mode],
    subscriptionExpiresAt: standing.subscriptionExpiresAt,
    isTestMode: ctx.payments.isTestMode,
  };
}

export function modesView() {
  return { modes: { byokmode: MODE_INFO.byokmode, paygmode: MODE_INFO.paygmode, basedmode: MODE_INFO.basedmode } };
}

interface CheckoutInput {
  email: string;
  successUrl: string;
  cancelUrl: string;
}

/**
 * Where the checkout sends the person back to: a web page or the app itself, as a URL
 * parsed and written out again. The checkout redirects there from this server (or from
 * Stripe) for whoever follows the link, so a javascript: or data: URL would run the
 * requester's script in the victim's browser.
 */
function returnUrl(ctx: Pick<AppContext, 'config'>, field: string, value: string): string {
  const app = `${ctx.config.billing.appScheme}:`;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'http:' && url?.protocol !== 'https:' && url?.protocol !== app) {
    throw new InvalidInput(`${field} must be an http or https URL, or a ${app}// link into the app`);
  }
  return url.href;
}

async function startCheckout(
  ctx: Checkout,
  caller: Payer,
  given: CheckoutInput,
  what: { kind: 'pack' | 'subscription'; packId: string | null; name: string; credits: number; priceCents: number },
): Promise<{ checkoutUrl: string }> {
  const input = {
    email: given.email,
    successUrl: returnUrl(ctx, 'successUrl', given.successUrl),
    cancelUrl: returnUrl(ctx, 'cancelUrl', given.cancelUrl),
  };
  let created: CreatedCheckout;
  try {
    created = await ctx.payments.createCheckout({ ...what, ...input, userId: caller.userId });
  } catch (error) {
    // A refusal of our own (payments off) keeps its status; anything else is the provider failing.
    if (error instanceof AppError) throw error;
    throw new InternalError(`The checkout could not be created: ${(error as Error).message}`);
  }
  await insertCheckoutSession(ctx.db, {
    id: created.sessionId,
    provider: created.provider,
    user_id: caller.userId,
    kind: what.kind,
    pack_id: what.packId,
    credits: what.credits,
    price_cents: what.priceCents,
    email: input.email,
    success_url: input.successUrl,
    cancel_url: input.cancelUrl,
    status: 'open',
    payment_reference: null,
    credits_refunded: 0,
    created_at: ctx.clock.now().toISOString(),
    paid_at: null,
    subscription_cancelled_at: null,
  });
  return { checkoutUrl: created.checkoutUrl };
}

/** A pack that is not on offer, with the ones that are. */
function unknownPack(packId: string): InvalidInput {
  const choices = `${OFFERED_PACK_IDS.slice(0, -1).join(', ')} or ${OFFERED_PACK_IDS.at(-1)}`;
  return new InvalidInput(
    `There is no pack “${packId}” on offer. Choose ${choices}; \`skillet packs\` and the Billing page list them with their prices.`,
  );
}

/**
 * Refuses a pack that is not on offer. Checked ahead of the rest of a purchase
 * (billing.routes.ts): a mistyped pack is the thing to fix, not a missing email.
 */
export function requireOfferedPack(packId: string): void {
  if (!OFFERED_PACK_IDS.includes(packId)) throw unknownPack(packId);
}

/** Starts paying for a pack, at the caller's mode's price. Only the webhook grants the credits. */
export async function purchasePack(ctx: Checkout, caller: Payer, packId: string, input: CheckoutInput) {
  const pack = packsFor((await modeNow(ctx, caller.userId)).mode).find((candidate) => candidate.id === packId);
  if (!pack) throw unknownPack(packId);
  return startCheckout(ctx, caller, input, {
    kind: 'pack',
    packId: pack.id,
    name: `Skillet credits: ${pack.name}`,
    credits: pack.credits,
    priceCents: pack.priceCents,
  });
}

/** Starts a basedmode subscription; each paid month grants its credits through the webhook. */
export function subscribe(ctx: Checkout, caller: Payer, input: CheckoutInput) {
  const plan = MODE_INFO.basedmode;
  return startCheckout(ctx, caller, input, {
    kind: 'subscription',
    packId: null,
    name: `Skillet ${plan.name} (${plan.priceDisplay})`,
    credits: plan.monthlyCredits,
    priceCents: plan.priceCents,
  });
}

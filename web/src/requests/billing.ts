import type {
  Balance,
  Checkout,
  CheckoutStarted,
  CreditPack,
  SubscriptionInfo,
  SubscriptionModes,
  SubscriptionStatus,
  TierInfo,
  Transaction,
} from '../../../src/sdk/types';
import { get, post } from '../api';

/** The modes anyone can be on by what they hold; a site license is granted, so it is not among them. */
export type ModeName = keyof SubscriptionModes['modes'];

/** A pack to buy, and where the hosted checkout sends the person back to on each outcome. */
export type Purchase = Checkout & { packId: string };

export const getBalance = () => get<Balance>('/api/v1/billing/balance');

export const getTier = () => get<TierInfo>('/api/v1/billing/subscription/tier');

export const listModes = async (): Promise<Record<ModeName, SubscriptionInfo>> =>
  (await get<SubscriptionModes>('/api/v1/billing/subscription/info')).modes;

/** The ledger's newest entries (the server keeps the 50 newest). */
export const listTransactions = async (): Promise<Transaction[]> =>
  (await get<{ transactions: Transaction[] }>('/api/v1/billing/transactions')).transactions;

/** The packs at the caller's prices: a subscription's discount is already taken off. */
export const listPacks = async (): Promise<CreditPack[]> => (await get<{ packs: CreditPack[] }>('/api/v1/billing/packs')).packs;

/** The hosted checkout's address for this pack. */
export const startCheckout = async (purchase: Purchase): Promise<string> =>
  (await post<CheckoutStarted>('/api/v1/billing/purchase', purchase)).checkoutUrl;

/** The hosted checkout's address for a Based subscription (no pack: the plan is the product). */
export const startSubscription = async (checkout: Checkout): Promise<string> =>
  (await post<CheckoutStarted>('/api/v1/billing/subscribe', checkout)).checkoutUrl;

/** Whether the person's Based subscription is on and renews, and until when it is paid. */
export const getSubscription = () => get<SubscriptionStatus>('/api/v1/billing/subscription');

/** Stops the subscription renewing; what was paid runs to its end. */
export const cancelSubscription = () => post<SubscriptionStatus>('/api/v1/billing/subscription/cancel');

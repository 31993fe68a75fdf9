import { Type } from 'typebox';
import { EMAIL_PATTERN, WEB_ADDRESS_PATTERN } from './common.js';

const Url = Type.String({ minLength: 1, maxLength: 2000, pattern: WEB_ADDRESS_PATTERN });

/** Where the receipt goes, and where the hosted checkout sends the browser back to. */
export const CheckoutBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320, pattern: EMAIL_PATTERN }),
  successUrl: Url,
  cancelUrl: Url,
});
export const CheckoutCreated = Type.Object({ checkoutUrl: Type.String() });

export const BalanceSchema = Type.Object({
  balance: Type.Number(),
  totalSpent: Type.Number(),
  canExecute: Type.Boolean(),
  isAdmin: Type.Boolean(),
});

export const CreditPackSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  credits: Type.Number(),
  priceCents: Type.Number(),
});
export const Packs = Type.Object({ packs: Type.Array(CreditPackSchema) });

export const TransactionSchema = Type.Object({
  id: Type.Number(),
  userId: Type.String(),
  amount: Type.Number(),
  type: Type.String(),
  description: Type.String(),
  executionId: Type.Union([Type.String(), Type.Null()]),
  paymentSessionId: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});
export const Transactions = Type.Object({ transactions: Type.Array(TransactionSchema) });

export const SubscriptionInfoSchema = Type.Object({
  name: Type.String(),
  priceCents: Type.Number(),
  priceDisplay: Type.String(),
  monthlyCredits: Type.Number(),
  packDiscount: Type.Number(),
});
export const Tier = Type.Object({
  tier: Type.String(),
  info: SubscriptionInfoSchema,
  subscriptionExpiresAt: Type.Union([Type.String(), Type.Null()]),
  isTestMode: Type.Boolean(),
});
/** A person's Based subscription: on or not, renewing or not, and until when it is paid. */
export const SubscriptionStatusSchema = Type.Object({
  subscribed: Type.Boolean(),
  renews: Type.Boolean(),
  paidUntil: Type.Union([Type.String(), Type.Null()]),
});
export const Modes = Type.Object({
  modes: Type.Object({ byokmode: SubscriptionInfoSchema, paygmode: SubscriptionInfoSchema, basedmode: SubscriptionInfoSchema }),
});

export const ByokStatusSchema = Type.Object({
  hasKey: Type.Boolean(),
  keyPreview: Type.Union([Type.String(), Type.Null()]),
  provider: Type.Union([Type.String(), Type.Null()]),
});
/** Removing the key answers without a provider. */
export const ByokDeleted = Type.Object({ hasKey: Type.Boolean(), keyPreview: Type.Null() });
export const PublishableKey = Type.Object({ publishableKey: Type.String() });

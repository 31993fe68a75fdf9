import { Type } from 'typebox';
import { EMAIL_PATTERN, WEB_ADDRESS_PATTERN } from '../http/schemas.js';

const Url = Type.String({ minLength: 1, maxLength: 2000, pattern: WEB_ADDRESS_PATTERN });

export const CheckoutBody = Type.Object({
  email: Type.String({ minLength: 3, maxLength: 320, pattern: EMAIL_PATTERN }),
  successUrl: Url,
  cancelUrl: Url,
});
export const PACK_ID_MAX = 50;
export const PurchaseBody = Type.Object({
  packId: Type.String({ minLength: 1, maxLength: PACK_ID_MAX }),
  ...CheckoutBody.properties,
});
export const CheckoutCreated = Type.Object({ checkoutUrl: Type.String() });

/** `skill`: answer canExecute for a run of this skill of the caller's workspace (an addition; SPEC.md names no query). */
export const BalanceQuery = Type.Object({
  skill: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: "A skill's slug: canExecute then answers for a run of it" }),
  ),
});
export const Balance = Type.Object({
  balance: Type.Number(),
  totalSpent: Type.Number(),
  canExecute: Type.Boolean(),
  isAdmin: Type.Boolean(),
});

const Pack = Type.Object({ id: Type.String(), name: Type.String(), credits: Type.Number(), priceCents: Type.Number() });
export const Packs = Type.Object({ packs: Type.Array(Pack) });

export const Transactions = Type.Object({
  transactions: Type.Array(
    Type.Object({
      id: Type.Number(),
      userId: Type.String(),
      amount: Type.Number(),
      type: Type.String(),
      description: Type.String(),
      executionId: Type.Union([Type.String(), Type.Null()]),
      paymentSessionId: Type.Union([Type.String(), Type.Null()]),
      createdAt: Type.String(),
    }),
  ),
});

const Info = Type.Object({
  name: Type.String(),
  priceCents: Type.Number(),
  priceDisplay: Type.String(),
  monthlyCredits: Type.Number(),
  packDiscount: Type.Number(),
});
export const Tier = Type.Object({
  tier: Type.String(),
  info: Info,
  subscriptionExpiresAt: Type.Union([Type.String(), Type.Null()]),
  isTestMode: Type.Boolean(),
});
export const SubscriptionStatus = Type.Object({
  subscribed: Type.Boolean(),
  renews: Type.Boolean(),
  paidUntil: Type.Union([Type.String(), Type.Null()]),
});
export const Modes = Type.Object({ modes: Type.Object({ byokmode: Info, paygmode: Info, basedmode: Info }) });

export const ByokStatus = Type.Object({
  hasKey: Type.Boolean(),
  keyPreview: Type.Union([Type.String(), Type.Null()]),
  provider: Type.Union([Type.String(), Type.Null()]),
});
export const ByokBody = Type.Object({ key: Type.Unknown() });
export const ByokDeleted = Type.Object({ hasKey: Type.Boolean(), keyPreview: Type.Null() });
export const PublishableKey = Type.Object({ publishableKey: Type.String() });
export const ReturnParams = Type.Object({ outcome: Type.String({ maxLength: 20 }) });

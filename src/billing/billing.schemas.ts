import { Type } from 'typebox';
import { CheckoutBody } from '../sdk/schemas/billing.js';

export const PACK_ID_MAX = 50;
export const PurchaseBody = Type.Object({
  packId: Type.String({ minLength: 1, maxLength: PACK_ID_MAX }),
  ...CheckoutBody.properties,
});

/** `skill`: answer canExecute for a run of this skill of the caller's workspace (an addition; SPEC.md names no query). */
export const BalanceQuery = Type.Object({
  skill: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: "A skill's slug: canExecute then answers for a run of it" }),
  ),
});

export const ByokBody = Type.Object({ key: Type.Unknown() });
export const ReturnParams = Type.Object({ outcome: Type.String({ maxLength: 20 }) });

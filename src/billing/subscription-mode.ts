export type SubscriptionMode = 'byokmode' | 'paygmode' | 'basedmode' | 'sitelicense';

/**
 * The mode is derived at request time, never stored. Subscriptions, site licenses and BYOK
 * keys arrive with the billing feature; until then every user is in paygmode.
 */
export function subscriptionModeOf(_userId: string): SubscriptionMode {
  return 'paygmode';
}

/** How many live API keys a user may hold in each mode (null: no limit). */
export const API_KEY_LIMITS: Record<SubscriptionMode, number | null> = {
  byokmode: 1,
  paygmode: 10,
  basedmode: null,
  sitelicense: null,
};

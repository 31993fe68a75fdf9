import type { Selectable } from 'kysely';
import type { UsersTable } from '../db/tables-identity.js';
import type { BillingStanding } from '../ports/callers.js';

export type SubscriptionMode = 'byokmode' | 'paygmode' | 'basedmode' | 'sitelicense';

export interface SubscriptionInfo {
  name: string;
  priceCents: number;
  priceDisplay: string;
  monthlyCredits: number;
  /** A fraction: 0.2 is 20% off every pack. */
  packDiscount: number;
}

type StandingColumns = Pick<Selectable<UsersTable>, 'subscription_expires_at' | 'site_license_until' | 'byok_provider'>;

export function standingOfRow(row: StandingColumns): BillingStanding {
  return {
    subscriptionExpiresAt: row.subscription_expires_at,
    siteLicenseUntil: row.site_license_until,
    hasByok: row.byok_provider !== null,
  };
}

/**
 * The mode is derived at request time, never stored: an active site license, else a
 * subscription that has not expired, else a stored BYOK key, else pay as you go.
 */
export function subscriptionModeOf(standing: BillingStanding, nowMs: number): SubscriptionMode {
  if (standing.siteLicenseUntil !== null && Date.parse(standing.siteLicenseUntil) > nowMs) return 'sitelicense';
  if (standing.subscriptionExpiresAt !== null && Date.parse(standing.subscriptionExpiresAt) > nowMs) return 'basedmode';
  return standing.hasByok ? 'byokmode' : 'paygmode';
}

/** How many live API keys a user may hold in each mode (null: no limit). */
export const API_KEY_LIMITS: Record<SubscriptionMode, number | null> = {
  byokmode: 1,
  paygmode: 10,
  basedmode: null,
  sitelicense: null,
};

/** What each mode is called and costs, and what it takes off every pack. */
export const MODE_INFO: Record<SubscriptionMode, SubscriptionInfo> = {
  byokmode: { name: 'Bring your own key', priceCents: 0, priceDisplay: '$0', monthlyCredits: 0, packDiscount: 0 },
  paygmode: { name: 'Pay as you go', priceCents: 0, priceDisplay: '$0', monthlyCredits: 0, packDiscount: 0 },
  basedmode: { name: 'Based', priceCents: 2900, priceDisplay: '$29.00 / month', monthlyCredits: 2000, packDiscount: 0.2 },
  sitelicense: { name: 'Site license', priceCents: 0, priceDisplay: '$0', monthlyCredits: 0, packDiscount: 0 },
};

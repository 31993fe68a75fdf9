import { MODE_INFO, type SubscriptionMode } from '../identity/subscription-mode.js';

export interface CreditPack {
  id: string;
  name: string;
  /** Ds granted. */
  credits: number;
  priceCents: number;
}

const PACKS: readonly CreditPack[] = [
  { id: 'pack_100', name: '100 Ds', credits: 100, priceCents: 100 },
  { id: 'pack_250', name: '250 Ds', credits: 250, priceCents: 225 },
  { id: 'pack_500', name: '500 Ds', credits: 500, priceCents: 425 },
  { id: 'pack_1000', name: '1,000 Ds', credits: 1000, priceCents: 800 },
  { id: 'pack_5000', name: '5,000 Ds', credits: 5000, priceCents: 3750 },
];

/** The ids of the packs on offer: the same in every mode, where only the prices differ. */
export const OFFERED_PACK_IDS: readonly string[] = PACKS.map((pack) => pack.id);

/** The packs as a user in `mode` pays for them. */
export function packsFor(mode: SubscriptionMode): CreditPack[] {
  const discount = MODE_INFO[mode].packDiscount;
  return PACKS.map((pack) => ({ ...pack, priceCents: Math.round(pack.priceCents * (1 - discount)) }));
}

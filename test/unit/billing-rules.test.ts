import { describe, expect, it } from 'vitest';
import { maskKey, providerOfKey } from '../../src/billing/byok.js';
import { runCost } from '../../src/billing/charges.js';
import { packsFor } from '../../src/billing/packs.js';
import { licenseEnd } from '../../src/billing/site-license.js';
import { subscriptionModeOf } from '../../src/billing/subscription-mode.js';

const now = new Date('2026-06-01T00:00:00.000Z');
const later = '2026-07-01T00:00:00.000Z';
const earlier = '2026-05-01T00:00:00.000Z';

describe('subscription mode', () => {
  it('is a live site license, else a live subscription, else a BYOK key, else pay as you go', () => {
    expect(subscriptionModeOf({ siteLicenseUntil: later, subscriptionExpiresAt: later, hasByok: true }, now)).toBe('sitelicense');
    expect(subscriptionModeOf({ siteLicenseUntil: earlier, subscriptionExpiresAt: later, hasByok: true }, now)).toBe('basedmode');
    expect(subscriptionModeOf({ siteLicenseUntil: null, subscriptionExpiresAt: earlier, hasByok: true }, now)).toBe('byokmode');
    expect(subscriptionModeOf({ siteLicenseUntil: null, subscriptionExpiresAt: null, hasByok: false }, now)).toBe('paygmode');
  });
});

describe('prices', () => {
  it('takes 20% off every pack in basedmode only', () => {
    expect(packsFor('paygmode').map((pack) => pack.priceCents)).toEqual([100, 225, 425, 800, 3750]);
    expect(packsFor('byokmode').map((pack) => pack.priceCents)).toEqual([100, 225, 425, 800, 3750]);
    expect(packsFor('basedmode').map((pack) => pack.priceCents)).toEqual([80, 180, 340, 640, 3000]);
  });

  it('charges a run its price plus model tokens at house rates, and no tokens on a BYOK key', () => {
    expect(runCost(1, { input: 0, output: 0 }, false)).toBe(1);
    expect(runCost(1, { input: 1000, output: 1000 }, false)).toBe(6);
    expect(runCost(0, { input: 1, output: 0 }, false)).toBe(1);
    expect(runCost(2, { input: 50_000, output: 20_000 }, true)).toBe(2);
  });
});

describe('BYOK keys', () => {
  it('are told apart by prefix, the longer sk-ant- first, and masked to a preview', () => {
    expect(providerOfKey(`sk-ant-${'a'.repeat(30)}`)).toBe('anthropic');
    expect(providerOfKey(`sk-proj-${'a'.repeat(30)}`)).toBe('openai');
    expect(providerOfKey(`sk-${'a'.repeat(30)}`)).toBe('openai');
    for (const bad of ['', 'sk-', 'sk-short', `pk-${'a'.repeat(30)}`, `sk-${'a'.repeat(30)} `, `sk-ant-${'a'.repeat(20)}\n`]) {
      expect(providerOfKey(bad), JSON.stringify(bad)).toBeNull();
    }
    expect(maskKey(`sk-ant-${'a'.repeat(30)}wxyz`)).toBe('sk-ant-…wxyz');
    expect(maskKey(`sk-proj-${'a'.repeat(30)}1234`)).toBe('sk-…1234');
  });
});

describe('site license dates', () => {
  it('run through the end of a given day, or to a given moment', () => {
    expect(licenseEnd('2027-12-31')).toBe('2027-12-31T23:59:59.999Z');
    expect(licenseEnd('2027-12-31T12:00:00Z')).toBe('2027-12-31T12:00:00.000Z');
    expect(() => licenseEnd('next year')).toThrow('--until must be a date');
  });
});

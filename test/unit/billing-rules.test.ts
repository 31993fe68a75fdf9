import { describe, expect, it } from 'vitest';
import { maskKey, providerOfKey } from '../../src/billing/byok.js';
import { packsFor } from '../../src/billing/packs.js';
import { licenseEnd } from '../../src/billing/site-license.js';
import { subscriptionModeOf } from '../../src/identity/subscription-mode.js';
import { parseModelPrices, TokenMeter, tokenCost } from '../../src/model-prices.js';

const now = Date.parse('2026-06-01T00:00:00.000Z');
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

  it('prices model tokens per million from the table, an unknown model at the default', () => {
    const prices = parseModelPrices('{"local-llama": {"input": 0, "output": 0}, "gpt-4.1-mini": {"input": 50, "output": 200}}');
    expect(tokenCost(prices, 'claude-sonnet-4-5', { input_tokens: 1_000_000, output_tokens: 1_000_000 })).toBe(1800);
    expect(tokenCost(prices, 'gpt-4.1-mini', { input_tokens: 1_000_000, output_tokens: 0 })).toBe(50);
    expect(tokenCost(prices, 'local-llama', { input_tokens: 5000, output_tokens: 5000 })).toBe(0);
    expect(tokenCost(prices, 'some-new-model', { input_tokens: 1_000_000, output_tokens: 0 })).toBe(300);
  });

  it('refuses a price table that is not JSON of {input, output} numbers', () => {
    expect(() => parseModelPrices('{')).toThrow(/must be JSON/);
    expect(() => parseModelPrices('[]')).toThrow(/object/);
    expect(() => parseModelPrices('{"m": {"input": -1, "output": 1}}')).toThrow(/MODEL_PRICES\["m"\]/);
    expect(() => parseModelPrices('{"m": {"input": 1}}')).toThrow(/MODEL_PRICES\["m"\]/);
  });

  it("charges whole Ds call by call that add up to the run's exact cost rounded up once", () => {
    const meter = new TokenMeter();
    const dues = [0.3, 0.3, 0.3, 0.3, 2.05].map((cost) => meter.add(cost));
    expect(dues).toEqual([1, 0, 0, 1, 2]);
    expect(dues.reduce((a, b) => a + b, 0)).toBe(Math.ceil(0.3 * 4 + 2.05));
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

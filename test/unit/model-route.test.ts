import { describe, expect, it } from 'vitest';
import type { AgentSettings } from '../../src/config.js';
import { DEFAULT_MODEL_PRICES } from '../../src/model-prices.js';
import { routeModel } from '../../src/models/model-route.js';

function settings(keys: { anthropic?: string; openai?: string }): AgentSettings {
  return {
    anthropic: { apiKey: keys.anthropic, baseUrl: 'http://anthropic.test', model: 'claude-default' },
    openai: { apiKey: keys.openai, baseUrl: 'http://openai.test/v1', model: 'gpt-default' },
    maxRetries: 2,
    timeoutMs: 1000,
    maxTurns: 25,
    maxOutputTokens: 1000,
    maxRunTokens: 100_000,
    thinkingBudget: 0,
    prices: DEFAULT_MODEL_PRICES,
  };
}

describe('routing a model call', () => {
  it("takes the payer's own key first, on its provider, with the skill's model for it", () => {
    const route = routeModel(settings({ anthropic: 'house-a' }), { anthropic: 'c1' }, { provider: 'openai', key: 'sk-own' });
    expect(route).toEqual({
      provider: 'openai',
      model: 'gpt-default',
      endpoint: { apiKey: 'sk-own', baseUrl: 'http://openai.test/v1', maxRetries: 2, timeoutMs: 1000 },
      ownKey: true,
    });
  });

  it('else the house key of the provider the skill names; either when it names none', () => {
    expect(routeModel(settings({ anthropic: 'a', openai: 'o' }), { openai: 'o1' }, undefined)).toMatchObject({
      provider: 'openai',
      model: 'o1',
      ownKey: false,
    });
    expect(routeModel(settings({ openai: 'o' }), {}, undefined)).toMatchObject({ provider: 'openai', model: 'gpt-default' });
    expect(routeModel(settings({ anthropic: 'a', openai: 'o' }), {}, undefined)).toMatchObject({ provider: 'anthropic' });
  });

  it('else nowhere: a skill naming only a provider without a house key has no route', () => {
    expect(routeModel(settings({ openai: 'o' }), { anthropic: 'c1' }, undefined)).toBeUndefined();
    expect(routeModel(settings({}), {}, undefined)).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import type { AgentSettings } from '../../src/config.js';
import { DEFAULT_MODEL_PRICES, type ModelPrices } from '../../src/model-prices.js';
import type { Skill } from '../../src/ports/skills.js';
import { modelUseOf } from '../../src/runtime/agent/model-use-estimate.js';
import { modelUseNote, priceLabel } from '../../src/sdk/skill-price.js';
import { parseSkillManifest } from '../../src/skills/manifest.js';

function settings(keys: { anthropic?: string; openai?: string }, prices: ModelPrices = DEFAULT_MODEL_PRICES): AgentSettings {
  return {
    anthropic: { apiKey: keys.anthropic, baseUrl: 'http://anthropic.test', model: 'claude-sonnet-4-6' },
    openai: { apiKey: keys.openai, baseUrl: 'http://openai.test/v1', model: 'gpt-4.1-mini' },
    maxRetries: 2,
    timeoutMs: 1000,
    maxTurns: 25,
    maxOutputTokens: 8192,
    maxRunTokens: 2_000_000,
    thinkingBudget: 0,
    prices,
  };
}

function skill(frontMatter: string, body = 'Write a short report.'): Skill {
  return {
    ...parseSkillManifest(`---\nname: test\ndescription: A test skill.\n${frontMatter}---\n${body}\n`, 'test'),
    slug: 'test',
    dir: '/nowhere',
    builtIn: true,
  };
}

describe("an agent skill's model use, estimated", () => {
  it('is null for a script skill, which calls no model', () => {
    expect(modelUseOf(settings({ anthropic: 'a' }), skill('runtime: script\nentry: main.mjs\n'), false)).toBeNull();
  });

  it("prices a typical run at the routed model's prices, rounded up to whole Ds", () => {
    const agent = skill('runtime: agent\nallowed-tools: list_files read_file write_file\n');
    const sonnet = modelUseOf(settings({ anthropic: 'a' }), agent, false);
    const mini = modelUseOf(settings({ openai: 'o' }), agent, false);
    expect(sonnet?.model).toBe('claude-sonnet-4-6');
    expect(mini?.model).toBe('gpt-4.1-mini');
    // Six calls, the conversation growing by 1,500 tokens a call: about 30k input and 3k output
    // tokens, 13 to 14 Ds on Sonnet (300 and 1,500 Ds per million), 2 on GPT-4.1 mini.
    expect(sonnet?.aboutDs).toBeGreaterThanOrEqual(12);
    expect(sonnet?.aboutDs).toBeLessThanOrEqual(16);
    expect(mini?.aboutDs).toBe(2);
  });

  it('grows with the instructions the model is sent on every call', () => {
    const short = modelUseOf(settings({ anthropic: 'a' }), skill('runtime: agent\n'), false);
    const long = modelUseOf(settings({ anthropic: 'a' }), skill('runtime: agent\n', 'Follow these steps. '.repeat(2000)), false);
    expect((long?.aboutDs ?? 0) - (short?.aboutDs ?? 0)).toBeGreaterThanOrEqual(15);
  });

  it("estimates the skill's own model, and 0 Ds for a model priced at 0", () => {
    const named = skill('runtime: agent\nmodel: local-llama\n');
    const prices = { ...DEFAULT_MODEL_PRICES, 'local-llama': { input: 0, output: 0 } };
    expect(modelUseOf(settings({ openai: 'o' }, prices), named, false)).toEqual({
      model: 'local-llama',
      aboutDs: 0,
      ownKey: false,
    });
  });

  it('with no house key, names the model a key of the caller would be asked for', () => {
    expect(modelUseOf(settings({}), skill('runtime: agent\n'), true)).toMatchObject({ model: 'claude-sonnet-4-6', ownKey: true });
  });
});

describe('the price as people read it', () => {
  it('says Free, a price per run, or the price plus model use', () => {
    expect(priceLabel({ price: 0, modelUse: null })).toBe('Free');
    expect(priceLabel({ price: 1, modelUse: null })).toBe('1 Ds per run');
    expect(priceLabel({ price: 1, modelUse: { model: 'm', aboutDs: 14, ownKey: false } })).toBe(
      '1 Ds + model use (about 14 Ds a run)',
    );
    expect(priceLabel({ price: 0, modelUse: { model: 'm', aboutDs: 17, ownKey: false } })).toBe('Model use (about 17 Ds a run)');
    expect(priceLabel({ price: 1, modelUse: { model: 'm', aboutDs: 14, ownKey: true } })).toBe(
      '1 Ds + model use on your own key (0 Ds)',
    );
  });

  it('says the model-use figure is an estimate, and what a key of your own changes', () => {
    expect(modelUseNote({ price: 0, modelUse: null })).toBeNull();
    expect(modelUseNote({ price: 1, modelUse: { model: 'claude-sonnet-4-6', aboutDs: 14, ownKey: false } })).toMatch(
      /estimate.*claude-sonnet-4-6|claude-sonnet-4-6.*estimate/s,
    );
    expect(modelUseNote({ price: 1, modelUse: { model: 'm', aboutDs: 14, ownKey: true } })).toMatch(/own model key.*0 Ds/);
  });
});

import type { TokenUsage } from './language-models.js';

/** Ds per million input and output tokens of one model. */
export interface ModelPrice {
  input: number;
  output: number;
}

/** Model id -> price; `default` prices any model the table does not name. */
export type ModelPrices = Record<string, ModelPrice>;

/**
 * What the house charges for its own keys, in Ds (a Ds is about a US cent) per million
 * tokens: the vendors' list prices, so a house call costs about what it costs us.
 * MODEL_PRICES adds to or overrides these (a local model is typically priced at 0).
 */
export const DEFAULT_MODEL_PRICES: ModelPrices = {
  default: { input: 300, output: 1500 },
  'claude-sonnet-4-6': { input: 300, output: 1500 },
  'claude-sonnet-4-5': { input: 300, output: 1500 },
  'claude-haiku-4-5': { input: 100, output: 500 },
  'claude-opus-4-1': { input: 1500, output: 7500 },
  'gpt-4.1': { input: 200, output: 800 },
  'gpt-4.1-mini': { input: 40, output: 160 },
  'gpt-4o': { input: 250, output: 1000 },
  'gpt-4o-mini': { input: 15, output: 60 },
};

function isPrice(value: unknown): value is ModelPrice {
  if (typeof value !== 'object' || value === null) return false;
  const { input, output } = value as Record<string, unknown>;
  return [input, output].every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= 1_000_000);
}

/** MODEL_PRICES: a JSON object of model id -> {input, output}, laid over the defaults. */
export function parseModelPrices(raw: string | undefined): ModelPrices {
  if (raw === undefined) return DEFAULT_MODEL_PRICES;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new Error('MODEL_PRICES must be JSON: {"<model id>": {"input": <Ds per million>, "output": <Ds per million>}}');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error('MODEL_PRICES must be a JSON object of model ids');
  }
  for (const [model, price] of Object.entries(parsed)) {
    if (!isPrice(price)) throw new Error(`MODEL_PRICES["${model}"] must be {"input": n, "output": n} with n from 0 to 1000000`);
  }
  return { ...DEFAULT_MODEL_PRICES, ...(parsed as ModelPrices) };
}

/** The exact (fractional) Ds a model's tokens cost. */
export function tokenCost(prices: ModelPrices, model: string, usage: TokenUsage): number {
  const price = prices[model] ?? prices.default ?? { input: 0, output: 0 };
  return (usage.input_tokens * price.input + usage.output_tokens * price.output) / 1_000_000;
}

/**
 * Whole Ds are charged call by call so that a run's charges add up to its exact cost rounded
 * up once, not once per call: each call is charged what it moves the rounded-up total.
 */
export class TokenMeter {
  #exact = 0;
  #charged = 0;

  /** Adds a call's cost; returns the whole Ds now due for it. */
  add(cost: number): number {
    this.#exact += cost;
    const due = Math.ceil(this.#exact - 1e-9) - this.#charged;
    this.#charged += due;
    return due;
  }
}

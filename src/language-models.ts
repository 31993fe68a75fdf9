/**
 * Value types about the language models a run calls. Billing, skills, agents and the
 * event codec all speak them, so they live below every feature.
 */

export type ModelProvider = 'anthropic' | 'openai';

export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
}

import type { AgentSettings } from '../config.js';
import type { ModelChoice } from '../ports/skills.js';
import type { ModelEndpoint, Provider } from './conversation.js';

/** Where one run's model calls go, on whose key, and whether they are paid for in Ds. */
export interface ModelRoute {
  provider: Provider;
  model: string;
  endpoint: ModelEndpoint;
  /** The payer's own key: its calls cost nothing here. */
  ownKey: boolean;
}

const PROVIDERS: readonly Provider[] = ['anthropic', 'openai'];

export const NO_MODEL_KEY =
  'No model key is available for this skill. Add your own under Billing, "Your own model key" ' +
  '(an sk-ant- key for Anthropic, any other sk- key for OpenAI), ' +
  'or ask whoever runs this server to set ANTHROPIC_API_KEY or OPENAI_API_KEY';

/**
 * DESIGN §9's routing: the payer's stored key wins and decides the provider; else the house
 * key of the provider the skill names a model for (either, when it names none); else none.
 */
export function routeModel(
  settings: AgentSettings,
  models: ModelChoice,
  ownKey: { provider: Provider; key: string } | undefined,
): ModelRoute | undefined {
  const endpoint = (provider: Provider, apiKey: string): ModelEndpoint => ({
    apiKey,
    baseUrl: settings[provider].baseUrl,
    maxRetries: settings.maxRetries,
    timeoutMs: settings.timeoutMs,
  });
  const modelOf = (provider: Provider) => models[provider] ?? settings[provider].model;
  if (ownKey) {
    return {
      provider: ownKey.provider,
      model: modelOf(ownKey.provider),
      endpoint: endpoint(ownKey.provider, ownKey.key),
      ownKey: true,
    };
  }
  const named = PROVIDERS.filter((provider) => models[provider] !== undefined);
  for (const provider of named.length > 0 ? named : PROVIDERS) {
    const houseKey = settings[provider].apiKey;
    if (houseKey) return { provider, model: modelOf(provider), endpoint: endpoint(provider, houseKey), ownKey: false };
  }
  return undefined;
}

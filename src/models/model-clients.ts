import type { AgentSettings } from '../config.js';
import { anthropicClient } from './anthropic-client.js';
import type { ModelClient, Provider } from './conversation.js';
import type { ModelRoute } from './model-route.js';
import { openaiClient } from './openai-client.js';

/**
 * The house keys' clients, one per provider for as long as the settings that name them live.
 * Building a vendor SDK's client (its tree of resource objects) took about 0.6 ms of the event
 * loop, once per run and per thread turn. A client holds no state of a call between calls.
 */
const houseClients = new WeakMap<AgentSettings, Map<Provider, ModelClient>>();

function newClient(route: ModelRoute): ModelClient {
  return route.provider === 'anthropic' ? anthropicClient(route.endpoint) : openaiClient(route.endpoint);
}

/**
 * The client a route's calls go through. A payer's own key gets a client of its own each
 * time, so that no key of theirs stays in memory past the run or turn that used it.
 */
export function clientFor(settings: AgentSettings, route: ModelRoute): ModelClient {
  if (route.ownKey) return newClient(route);
  let clients = houseClients.get(settings);
  if (!clients) {
    clients = new Map();
    houseClients.set(settings, clients);
  }
  let client = clients.get(route.provider);
  if (!client) {
    client = newClient(route);
    clients.set(route.provider, client);
  }
  return client;
}

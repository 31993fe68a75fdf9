import type { ModelCallFailed, Provider } from '../../models/conversation.js';
import type { ModelRoute } from '../../models/model-route.js';
import type { RunOutcome } from '../runtime.js';

const PROVIDER_NAMES: Record<Provider, string> = { anthropic: 'Anthropic', openai: 'OpenAI' };

/** The statuses a vendor answers a key it will not take with: invalid (401) or not allowed (403). */
function keyRefused(error: ModelCallFailed): boolean {
  return error.status === 401 || error.status === 403;
}

/**
 * How a run ends when a model call failed for good. A key refused is nobody's doing but its
 * holder's: the house key's is the service's failure (refunded), the payer's own key's
 * their own, refunded only when it was the run's first call, as the run then did no work.
 * Any other failure is the run's, and keeps its charge.
 */
export function modelCallFailure(error: ModelCallFailed, route: ModelRoute, call: number): RunOutcome {
  if (!keyRefused(error)) return { kind: 'failed', reason: `The model call failed: ${error.message}` };
  if (!route.ownKey) {
    return {
      kind: 'failed',
      reason:
        `The model call failed: ${error.message}. The server's own ${PROVIDER_NAMES[route.provider]} key was refused, ` +
        'so the run was not charged: ask the operator to check it.',
      fault: 'service',
    };
  }
  const reason =
    `Your own provider key was refused by ${PROVIDER_NAMES[route.provider]}: replace it in Billing, ` +
    `or remove it to use credits (${error.message})`;
  return call === 1
    ? { kind: 'failed', reason: `${reason}. The run did no work and was not charged.`, fault: 'own-key' }
    : { kind: 'failed', reason: `${reason}.` };
}

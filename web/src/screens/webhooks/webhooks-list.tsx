import type { WebhookEndpoint } from '../../../../src/sdk/types';
import { Link } from '../../router';
import { ConfirmButton, formatTime } from '../../ui';

export interface EndpointActions {
  busy: boolean;
  onToggle: (endpoint: WebhookEndpoint) => void;
  onTest: (endpoint: WebhookEndpoint) => void;
  onRotate: (endpoint: WebhookEndpoint) => void;
  onDelete: (endpoint: WebhookEndpoint) => void;
}

/**
 * The endpoints as cards rather than a table: each has five actions, which a table row
 * could not hold at a phone's width. Each card is a list item named by its URL.
 */
export function EndpointList({ endpoints, actions }: { endpoints: WebhookEndpoint[]; actions: EndpointActions }) {
  return (
    <ul class="webhooks-list">
      {endpoints.map((endpoint) => (
        <li key={endpoint.id} class="webhooks-endpoint">
          <div class="row webhooks-endpoint-head">
            <h3 class="mono">{endpoint.url}</h3>
            <span class={`badge badge-${endpoint.enabled ? 'enabled' : 'disabled'}`}>
              {endpoint.enabled ? 'Enabled' : 'Disabled'}
            </span>
          </div>
          {endpoint.description && <p class="webhooks-description">{endpoint.description}</p>}
          <p class="webhooks-subscribed">
            <span class="muted">Events: </span>
            {endpoint.events.map((type) => (
              <code key={type}>{type}</code>
            ))}
          </p>
          <p class="hint">Added {formatTime(endpoint.createdAt)}</p>
          <div class="row webhooks-actions">
            <Link href={`/webhooks/${encodeURIComponent(endpoint.id)}`}>Delivery log</Link>
            <button type="button" disabled={actions.busy || !endpoint.enabled} onClick={() => actions.onTest(endpoint)}>
              Send test event
            </button>
            <button type="button" disabled={actions.busy} onClick={() => actions.onToggle(endpoint)}>
              {endpoint.enabled ? 'Disable' : 'Enable'}
            </button>
            <ConfirmButton
              label="Rotate secret"
              confirmLabel="Yes, rotate"
              disabled={actions.busy}
              onConfirm={() => actions.onRotate(endpoint)}
            />
            <ConfirmButton
              label="Delete"
              confirmLabel="Yes, delete"
              disabled={actions.busy}
              onConfirm={() => actions.onDelete(endpoint)}
            />
          </div>
        </li>
      ))}
    </ul>
  );
}

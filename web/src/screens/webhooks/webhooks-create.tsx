import { useState } from 'preact/hooks';
import type { CreatedWebhookEndpoint, WebhookEventType } from '../../../../src/sdk/types';
import { createWebhook } from '../../requests/webhooks';
import { Notice, useAction } from '../../ui';
import { EVENT_TYPES } from './webhooks-shared';

const ALL_EVENTS = EVENT_TYPES.map((event) => event.type);

/** Adds an endpoint to the workspace the session acts in; the server checks where the URL leads. */
export function WebhookCreate({ onCreated }: { onCreated: (endpoint: CreatedWebhookEndpoint) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>(ALL_EVENTS);
  const action = useAction();

  const toggle = (type: WebhookEventType, on: boolean) =>
    setEvents((chosen) =>
      on ? ALL_EVENTS.filter((each) => each === type || chosen.includes(each)) : chosen.filter((each) => each !== type),
    );

  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      // The server would refuse an empty list too; saying so here names the field.
      if (events.length === 0) throw new Error('Choose at least one event to send.');
      const trimmed = description.trim();
      onCreated(
        await createWebhook({
          url: url.trim(),
          events,
          ...(trimmed ? { description: trimmed } : {}),
        }),
      );
      setUrl('');
      setDescription('');
      setEvents(ALL_EVENTS);
    });
  };

  return (
    <section aria-labelledby="webhooks-create">
      <h2 id="webhooks-create">Add an endpoint</h2>
      <form onSubmit={submit}>
        <label for="webhook-url">Endpoint URL</label>
        <input
          id="webhook-url"
          type="url"
          required
          maxLength={2000}
          autoComplete="off"
          placeholder="https://example.com/hooks/skillet"
          value={url}
          aria-describedby="webhook-url-hint"
          onInput={(event) => setUrl(event.currentTarget.value)}
        />
        <p id="webhook-url-hint" class="hint">
          Skillet POSTs signed JSON here. The address must be reachable from the internet.
        </p>
        <label for="webhook-description">Description (optional)</label>
        <input
          id="webhook-description"
          maxLength={200}
          autoComplete="off"
          value={description}
          onInput={(event) => setDescription(event.currentTarget.value)}
        />
        <fieldset class="webhooks-events">
          <legend>Events to send</legend>
          {EVENT_TYPES.map(({ type, meaning }) => (
            <label key={type} class="webhooks-check">
              <input
                type="checkbox"
                checked={events.includes(type)}
                onChange={(event) => toggle(type, event.currentTarget.checked)}
              />
              <span>
                <code>{type}</code> <span class="muted">{meaning}</span>
              </span>
            </label>
          ))}
        </fieldset>
        {action.error && <Notice kind="error">{action.error}</Notice>}
        <button type="submit" class="primary" disabled={action.busy}>
          Add endpoint
        </button>
      </form>
    </section>
  );
}

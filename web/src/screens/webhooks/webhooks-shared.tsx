import { useEffect, useRef } from 'preact/hooks';
import type { WebhookDelivery, WebhookEventType } from '../../../../src/sdk/types';
import { CopyButton, Notice } from '../../ui';

/** The events an endpoint can subscribe to, each with what it means in a few words. */
export const EVENT_TYPES: { type: WebhookEventType; meaning: string }[] = [
  { type: 'execution.completed', meaning: 'a run finished' },
  { type: 'execution.failed', meaning: 'a run failed' },
  { type: 'artifact.created', meaning: 'a run wrote an artifact' },
  { type: 'credits.granted', meaning: 'credits were added' },
];

/**
 * Nothing signals when the dispatcher has sent a delivery, and a new one is sent within a
 * poll interval: while `waiting` (a delivery not yet attempted is on screen), look again
 * shortly after each answer. Retries wait minutes, so those are left to Refresh.
 */
export function useReloadWhile(waiting: boolean, answer: unknown, reload: () => void): void {
  useEffect(() => {
    if (!waiting) return;
    const timer = setTimeout(reload, 1000);
    return () => clearTimeout(timer);
  }, [waiting, answer]);
}

export function DeliveryStatusBadge({ delivery }: { delivery: WebhookDelivery }) {
  return <span class={`badge badge-${delivery.status}`}>{delivery.status}</span>;
}

/** The receiver's last answer in words: its error, else its status code. */
export function lastAnswerOf(delivery: Pick<WebhookDelivery, 'lastError' | 'lastStatusCode'>): string {
  return delivery.lastError ?? (delivery.lastStatusCode === null ? '—' : `answered ${delivery.lastStatusCode}`);
}

/** The one showing of a signing secret, after creating an endpoint or rotating its secret. */
export function SecretNotice({ title, secret, onDone }: { title: string; secret: string; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Focus moves here so keyboard and screen reader users land on the secret they must copy.
  useEffect(() => {
    heading.current?.focus();
  }, [secret]);
  return (
    <section class="webhooks-secret" aria-labelledby="webhooks-secret">
      <h2 id="webhooks-secret" ref={heading} tabIndex={-1}>
        {title}
      </h2>
      <Notice kind="info">
        Copy this signing secret now: it will not be shown again. Your receiver needs it to check that requests come from Skillet.
      </Notice>
      <label for="webhook-secret">Signing secret</label>
      <div class="row webhooks-secret-row">
        <input id="webhook-secret" class="mono" readOnly value={secret} onFocus={(event) => event.currentTarget.select()} />
        <CopyButton text={secret} label="Copy secret" />
      </div>
      <p class="hint">
        Requests carry <code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> headers
        (Standard Webhooks); any Standard Webhooks library verifies them with this secret.
      </p>
      <button type="button" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}

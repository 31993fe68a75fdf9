import type { WebhookDeliveryDetail } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { getDelivery, resendDelivery } from '../../requests/webhooks';
import { Link, navigate } from '../../router';
import { formatTime, Notice, useAction } from '../../ui';
import { DeliveryStatusBadge, lastAnswerOf, useReloadWhile } from './webhooks-shared';
import './webhooks.css';

function AttemptLog({ delivery }: { delivery: WebhookDeliveryDetail }) {
  if (delivery.attemptLog.length === 0) return <p>Not attempted yet.</p>;
  return (
    <table class="stack webhooks-attempts">
      <thead>
        <tr>
          <th scope="col">Attempt</th>
          <th scope="col">When</th>
          <th scope="col">Status code</th>
          <th scope="col">Error</th>
          <th scope="col">Took</th>
        </tr>
      </thead>
      <tbody>
        {delivery.attemptLog.map((attempt) => (
          <tr key={attempt.number}>
            <th scope="row" data-label="Attempt">
              {attempt.number}
            </th>
            <td data-label="When">{formatTime(attempt.attemptedAt)}</td>
            <td data-label="Status code">{attempt.statusCode ?? '—'}</td>
            <td data-label="Error">{attempt.error ?? '—'}</td>
            <td data-label="Took">{attempt.durationMs} ms</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * One delivery: where it stands, every attempt, and the payload as signed. Redelivering
 * sends the same message (same webhook-id): a delivery that ended as a new delivery, which
 * this screen then shows; one waiting for a retry is tried at once, and shown again here.
 */
export function WebhookDeliveryScreen({ endpointId, deliveryId }: { endpointId: string; deliveryId: string }) {
  const delivery = useLoad(() => getDelivery(endpointId, deliveryId), [endpointId, deliveryId]);
  const redelivering = useAction();
  const data = delivery.data;
  // An attempt is on its way: the first one, or one brought forward by Redeliver.
  const attemptDue =
    data?.status === 'pending' &&
    (data.attempts === 0 || (data.nextAttemptAt !== null && Date.parse(data.nextAttemptAt) <= Date.now()));
  useReloadWhile(attemptDue, data, delivery.reload);
  const logHref = `/webhooks/${encodeURIComponent(endpointId)}`;

  const redeliver = () =>
    redelivering.run(async () => {
      const again = await resendDelivery(endpointId, deliveryId);
      if (again.id === deliveryId) delivery.reload();
      else navigate(`${logHref}/deliveries/${encodeURIComponent(again.id)}`);
    });

  return (
    <>
      <p>
        <Link href={logHref}>Back to the delivery log</Link>
      </p>
      {delivery.error && <Notice kind="error">{delivery.error}</Notice>}
      {!data && !delivery.error && <p aria-busy="true">Loading the delivery…</p>}
      {data && (
        <>
          <section aria-labelledby="delivery-summary">
            <div class="row webhooks-heading">
              <h2 id="delivery-summary">
                <code>{data.eventType}</code> <DeliveryStatusBadge delivery={data} />
              </h2>
              <button type="button" class="primary" disabled={redelivering.busy} onClick={redeliver}>
                Redeliver
              </button>
            </div>
            {redelivering.error && <Notice kind="error">{redelivering.error}</Notice>}
            <dl class="webhooks-facts">
              <dt>Message id</dt>
              <dd class="mono">{data.messageId}</dd>
              <dt>Attempts</dt>
              <dd>{data.attempts}</dd>
              <dt>Last answer</dt>
              <dd>{lastAnswerOf(data)}</dd>
              <dt>Queued</dt>
              <dd>{formatTime(data.createdAt)}</dd>
              <dt>Last attempt</dt>
              <dd>{formatTime(data.lastAttemptAt)}</dd>
              <dt>Next attempt</dt>
              <dd>{formatTime(data.nextAttemptAt)}</dd>
            </dl>
            <p class="hint">A redelivery keeps the message id, so a receiver that handled it already can tell it is a repeat.</p>
          </section>
          <section aria-labelledby="delivery-attempts">
            <h2 id="delivery-attempts">Attempts</h2>
            <AttemptLog delivery={data} />
          </section>
          <section aria-labelledby="delivery-payload">
            <h2 id="delivery-payload">Payload</h2>
            <pre class="webhooks-payload">{JSON.stringify(data.payload, null, 2)}</pre>
          </section>
        </>
      )}
    </>
  );
}

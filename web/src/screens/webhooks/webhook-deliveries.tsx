import { useState } from 'preact/hooks';
import type { WebhookDelivery, WebhookDeliveryStatus } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { getWebhook, listDeliveries, sendTestEvent } from '../../requests/webhooks';
import { Link } from '../../router';
import { formatTime, Notice, useAction } from '../../ui';
import { DeliveryStatusBadge, lastAnswerOf, useReloadWhile } from './webhooks-shared';
import './webhooks.css';

const PAGE_SIZE = 20;

function DeliveryRows({ endpointId, items }: { endpointId: string; items: WebhookDelivery[] }) {
  return (
    <table class="stack webhooks-deliveries">
      <thead>
        <tr>
          <th scope="col">Event</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">Last answer</th>
          <th scope="col">Queued</th>
          <th scope="col">Last attempt</th>
          <th scope="col">Next attempt</th>
          <th scope="col">
            <span class="sr-only">Details</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((delivery) => (
          <tr key={delivery.id}>
            <th scope="row" data-label="Event">
              <code>{delivery.eventType}</code>
            </th>
            <td data-label="Status">
              <DeliveryStatusBadge delivery={delivery} />
            </td>
            <td data-label="Attempts">{delivery.attempts}</td>
            <td data-label="Last answer">{lastAnswerOf(delivery)}</td>
            <td data-label="Queued">{formatTime(delivery.createdAt)}</td>
            <td data-label="Last attempt">{formatTime(delivery.lastAttemptAt)}</td>
            <td data-label="Next attempt">{formatTime(delivery.nextAttemptAt)}</td>
            <td>
              <Link
                href={`/webhooks/${encodeURIComponent(endpointId)}/deliveries/${encodeURIComponent(delivery.id)}`}
                aria-label={`Details of ${delivery.eventType} queued ${formatTime(delivery.createdAt)}`}
              >
                Details
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One endpoint's delivery log, newest first, with a test event to send and a filter by status. */
export function WebhookDeliveriesScreen({ id }: { id: string }) {
  const [status, setStatus] = useState<WebhookDeliveryStatus | ''>('');
  const [offset, setOffset] = useState(0);
  const endpoint = useLoad(() => getWebhook(id), [id]);
  const log = useLoad(() => listDeliveries(id, PAGE_SIZE, offset, status), [id, offset, status]);
  const testing = useAction();
  const [sent, setSent] = useState(false);
  useReloadWhile(log.data?.items.some((item) => item.status === 'pending' && item.attempts === 0) ?? false, log.data, log.reload);

  const sendTest = () =>
    testing.run(async () => {
      setSent(false);
      await sendTestEvent(id);
      setSent(true);
      setOffset(0);
      log.reload();
    });

  if (endpoint.error) {
    return (
      <>
        <Notice kind="error">{endpoint.error}</Notice>
        <Link href="/webhooks">All webhooks</Link>
      </>
    );
  }
  return (
    <>
      <p>
        <Link href="/webhooks">All webhooks</Link>
      </p>
      <section aria-labelledby="webhook-log">
        <h2 id="webhook-log" class="mono webhooks-url">
          {endpoint.data?.url ?? 'Loading…'}
        </h2>
        {endpoint.data && !endpoint.data.enabled && (
          <Notice kind="info">This endpoint is disabled: nothing is sent to it, and deliveries due meanwhile fail.</Notice>
        )}
        <div class="row webhooks-log-controls">
          <label for="webhook-status">Status</label>
          <select
            id="webhook-status"
            value={status}
            onChange={(event) => {
              setStatus(event.currentTarget.value as WebhookDeliveryStatus | '');
              setOffset(0);
            }}
          >
            <option value="">All</option>
            <option value="pending">Pending</option>
            <option value="delivered">Delivered</option>
            <option value="failed">Failed</option>
          </select>
          <button type="button" onClick={log.reload} disabled={log.loading}>
            Refresh
          </button>
          <button type="button" onClick={sendTest} disabled={testing.busy || !endpoint.data?.enabled}>
            Send test event
          </button>
        </div>
        {sent && (
          <Notice kind="success">
            Queued a <code>webhook.test</code> event.
          </Notice>
        )}
        {testing.error && <Notice kind="error">{testing.error}</Notice>}
        {log.error && <Notice kind="error">{log.error}</Notice>}
        {log.data === undefined ? (
          !log.error && <p aria-busy="true">Loading deliveries…</p>
        ) : log.data.items.length === 0 ? (
          <p>No deliveries{status ? ` with status ${status}` : ''} yet.</p>
        ) : (
          <>
            <DeliveryRows endpointId={id} items={log.data.items} />
            <nav class="row webhooks-paging" aria-label="Pages of deliveries">
              {offset > 0 && (
                <button type="button" onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}>
                  Newer
                </button>
              )}
              <span class="muted">
                {offset + 1}–{offset + log.data.items.length} of {log.data.total}
              </span>
              {log.data.hasMore && (
                <button type="button" onClick={() => setOffset(offset + PAGE_SIZE)}>
                  Older
                </button>
              )}
            </nav>
          </>
        )}
      </section>
    </>
  );
}

import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import type { WebhookEndpoint } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { deleteWebhook, listWebhooks, rotateWebhookSecret, sendTestEvent, setWebhookEnabled } from '../../requests/webhooks';
import { Link } from '../../router';
import { useMe, workspaceLabel } from '../../session';
import { Notice, useAction } from '../../ui';
import { WebhookCreate } from './webhooks-create';
import { EndpointList } from './webhooks-list';
import { SecretNotice } from './webhooks-shared';
import './webhooks.css';

interface ShownSecret {
  endpointId: string;
  title: string;
  secret: string;
}

/**
 * The workspace's outbound webhooks: its endpoints, adding one, and what can be done to
 * each. A signing secret lives only in this component's state, so it is gone once the
 * person leaves or reloads the page: the server shows it in the creating or rotating
 * answer only. No live signal covers webhooks, so the list reloads after each action.
 */
export function WebhooksScreen() {
  const me = useMe();
  const list = useLoad(listWebhooks, [me?.workspace.id]);
  const [shown, setShown] = useState<ShownSecret | undefined>();
  const [done, setDone] = useState<ComponentChildren | undefined>();
  const action = useAction();

  const act = (work: () => Promise<ComponentChildren>) =>
    action.run(async () => {
      setDone(undefined);
      setDone(await work());
      list.reload();
    });

  const actions = {
    busy: action.busy,
    onToggle: (endpoint: WebhookEndpoint) =>
      act(async () => {
        await setWebhookEnabled(endpoint.id, !endpoint.enabled);
        return endpoint.enabled
          ? `Disabled ${endpoint.url}. Nothing is sent to it until it is enabled.`
          : `Enabled ${endpoint.url}.`;
      }),
    onTest: (endpoint: WebhookEndpoint) =>
      act(async () => {
        await sendTestEvent(endpoint.id);
        return (
          <>
            Sent a <code>webhook.test</code> event to {endpoint.url}.{' '}
            <Link href={`/webhooks/${encodeURIComponent(endpoint.id)}`}>See the delivery log</Link>.
          </>
        );
      }),
    onRotate: (endpoint: WebhookEndpoint) =>
      act(async () => {
        const secret = await rotateWebhookSecret(endpoint.id);
        setShown({ endpointId: endpoint.id, title: `New signing secret for ${endpoint.url}`, secret });
        return `Rotated the secret of ${endpoint.url}. For the next 24 hours the old one signs beside it, so switch your receiver to the new one within a day.`;
      }),
    onDelete: (endpoint: WebhookEndpoint) =>
      act(async () => {
        await deleteWebhook(endpoint.id);
        if (shown?.endpointId === endpoint.id) setShown(undefined);
        return `Deleted ${endpoint.url}.`;
      }),
  };

  if (list.data && 'forbidden' in list.data) {
    return (
      <>
        <Notice kind="error">{list.data.forbidden}</Notice>
        <p class="hint">Ask an owner or admin of {me ? workspaceLabel(me.workspace) : 'this workspace'} to set up webhooks.</p>
      </>
    );
  }
  return (
    <>
      <p class="lede">
        Skillet POSTs a signed event to each endpoint when something happens in{' '}
        {me ? workspaceLabel(me.workspace) : 'this workspace'}: a run finishes or fails, an artifact is written, credits are
        added.
      </p>
      {shown && <SecretNotice title={shown.title} secret={shown.secret} onDone={() => setShown(undefined)} />}
      <WebhookCreate
        onCreated={({ secret, ...endpoint }) => {
          setDone(undefined);
          setShown({ endpointId: endpoint.id, title: `Signing secret for ${endpoint.url}`, secret });
          list.reload();
        }}
      />
      <section aria-labelledby="webhooks-list">
        <div class="row webhooks-heading">
          <h2 id="webhooks-list">Endpoints</h2>
          <button type="button" onClick={list.reload} disabled={list.loading}>
            Refresh
          </button>
        </div>
        {done !== undefined && <Notice kind="success">{done}</Notice>}
        {action.error && <Notice kind="error">{action.error}</Notice>}
        {list.error && <Notice kind="error">{list.error}</Notice>}
        {list.data === undefined ? (
          !list.error && <p aria-busy="true">Loading endpoints…</p>
        ) : list.data.endpoints.length === 0 ? (
          <p>No endpoints yet. Add one above to be told of runs, artifacts and credits as they happen.</p>
        ) : (
          <EndpointList endpoints={list.data.endpoints} actions={actions} />
        )}
      </section>
    </>
  );
}

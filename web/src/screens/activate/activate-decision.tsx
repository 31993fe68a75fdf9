import { useState } from 'preact/hooks';
import { SkilletError } from '../../../../src/sdk/errors';
import { useLoad } from '../../load';
import { approveActivation, denyActivation } from '../../requests/activation';
import { listWorkspaces } from '../../requests/workspaces';
import { useMe, workspaceLabel } from '../../session';
import { Notice, useAction } from '../../ui';
import { WorkspacePicker } from '../workspaces/workspaces-shared';

/** What the person decided on this page, so the outcome can say it in their words. */
export type Decided = { kind: 'approved'; workspace: string } | { kind: 'denied' };

/** Answers that mean the code moved on without us: the lookup then shows where it is now. */
const STALE_STATUSES = new Set([404, 409, 410]);

/** Approve (into a chosen workspace) or deny a pending code. */
export function ActivationDecision({
  code,
  onDecided,
  onStale,
}: {
  code: string;
  onDecided: (outcome: Decided) => void;
  onStale: () => void;
}) {
  const me = useMe();
  const workspaces = useLoad(listWorkspaces, []);
  const [chosen, setChosen] = useState<string | undefined>();
  const action = useAction();
  const list = workspaces.data ?? [];
  const workspaceId = chosen ?? me?.workspace.id ?? list[0]?.id;
  const workspace = list.find((candidate) => candidate.id === workspaceId);

  const decide = (kind: 'approved' | 'denied') =>
    action.run(async () => {
      try {
        if (kind === 'approved') {
          if (!workspace) throw new Error('Choose a workspace for the device first.');
          await approveActivation(code, workspace.id);
          onDecided({ kind, workspace: workspaceLabel(workspace) });
        } else {
          await denyActivation(code);
          onDecided({ kind });
        }
      } catch (error) {
        if (error instanceof SkilletError && STALE_STATUSES.has(error.status)) onStale();
        throw error;
      }
    });

  return (
    <section aria-labelledby="activate-decide">
      <h2 id="activate-decide">Your decision</h2>
      {workspaces.error && <Notice kind="error">{workspaces.error}</Notice>}
      {list.length > 0 && workspaceId && (
        <WorkspacePicker
          id="activate-workspace"
          label="Workspace the device may act in"
          workspaces={list}
          value={workspaceId}
          onChange={setChosen}
        />
      )}
      <p class="hint">
        Approving gives the device an API key for this workspace: it can run skills and spend its credits until you revoke the key
        under API keys.
      </p>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      <div class="row activate-buttons">
        <button type="button" class="primary" disabled={action.busy || !workspace} onClick={() => void decide('approved')}>
          Approve
        </button>
        <button type="button" disabled={action.busy} onClick={() => void decide('denied')}>
          Deny
        </button>
      </div>
    </section>
  );
}

import type { ApiKey } from '../../../../src/sdk/types';
import type { Workspace } from '../../requests/workspaces';
import { ConfirmButton, formatTime } from '../../ui';
import { workspaceNameOf } from '../workspaces/workspaces-shared';

/** The keys as a table that stacks into cards on a phone; each cell names itself there. */
/** The server's heartbeat (ACTIVE, IDLE, DORMANT) as a person says it; a key never used is new, not asleep. */
function activityOf(key: { heartbeat: string; lastUsedAt: string | null }): string {
  if (key.heartbeat === 'ACTIVE') return 'In use now';
  if (key.heartbeat === 'IDLE') return 'Used this week';
  return key.lastUsedAt === null ? 'Not used yet' : 'Unused for over a week';
}

export function KeyTable({
  keys,
  workspaces,
  busy,
  onRevoke,
}: {
  keys: ApiKey[];
  workspaces: Workspace[] | undefined;
  busy: boolean;
  onRevoke: (key: ApiKey) => void;
}) {
  return (
    <table class="stack keys-table">
      <thead>
        <tr>
          <th scope="col">Label</th>
          <th scope="col">Key</th>
          <th scope="col">Workspace</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Activity</th>
          <th scope="col">
            <span class="sr-only">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => (
          <tr key={key.id}>
            <th scope="row" data-label="Label">
              {key.label}
            </th>
            <td data-label="Key">
              <span class="mono">{key.keyPreview}</span>
            </td>
            <td data-label="Workspace">{workspaceNameOf(workspaces, key.workspaceId)}</td>
            <td data-label="Created">{formatTime(key.createdAt)}</td>
            <td data-label="Last used">{key.lastUsedAt ? formatTime(key.lastUsedAt) : 'Never'}</td>
            <td data-label="Activity">
              <span class={`badge badge-${key.heartbeat.toLowerCase()}`}>{activityOf(key)}</span>
            </td>
            <td>
              <ConfirmButton label="Revoke" confirmLabel="Yes, revoke" disabled={busy} onConfirm={() => onRevoke(key)} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

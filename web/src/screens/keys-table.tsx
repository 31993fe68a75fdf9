import type { ApiKey } from '../../../src/sdk/types';
import type { Workspace } from '../requests/workspaces';
import { ConfirmButton, formatTime } from '../ui';
import { workspaceNameOf } from './workspaces-shared';

/** The keys as a table that stacks into cards on a phone; each cell names itself there. */
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
          <th scope="col">Heartbeat</th>
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
            <td data-label="Heartbeat">
              <span class={`badge badge-${key.heartbeat.toLowerCase()}`}>{key.heartbeat}</span>
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

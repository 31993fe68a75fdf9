import type { Workspace } from '../../requests/workspaces';
import { workspaceLabel } from '../../session';

/** A workspace's name for a list, or a plain word when the id is not among the person's. */
export function workspaceNameOf(workspaces: Workspace[] | undefined, id: string): string {
  const found = workspaces?.find((workspace) => workspace.id === id);
  return found ? workspaceLabel(found) : 'Another workspace';
}

/** A labelled choice of the person's workspaces. */
export function WorkspacePicker({
  id,
  label,
  workspaces,
  value,
  onChange,
}: {
  id: string;
  label: string;
  workspaces: Workspace[];
  value: string;
  onChange: (workspaceId: string) => void;
}) {
  return (
    <>
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
        {workspaces.map((workspace) => (
          <option key={workspace.id} value={workspace.id}>
            {workspaceLabel(workspace)}
            {workspace.personal ? '' : ` (${workspace.role})`}
          </option>
        ))}
      </select>
    </>
  );
}

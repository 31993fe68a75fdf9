import type { Me } from '../../src/sdk/types';
import { useLoad } from './load';
import { listWorkspaces, switchWorkspace } from './requests/workspaces';
import { navigate, useRoute } from './router';
import { refreshMe, workspaceLabel } from './session';
import { useAction } from './ui';

const WORKSPACE_CHANGES = ['workspaces'];

/**
 * The workspace this session acts in, in the header; a choice among them once the person
 * has more than one. A screen showing one workspace's thing (a run, an artifact) would
 * show another's after a switch, so those go back to their list.
 */
export function WorkspaceSwitcher({ me }: { me: Me }) {
  // Runs starting and ending do not change the list: only a workspace made, renamed, joined or left does.
  const workspaces = useLoad(listWorkspaces, [me.workspace.id], WORKSPACE_CHANGES);
  const { path } = useRoute();
  const switching = useAction();
  const list = workspaces.data ?? [];
  if (list.length < 2) return <span class="workspace-name">{workspaceLabel(me.workspace)}</span>;
  const choose = (workspaceId: string) =>
    switching.run(async () => {
      await switchWorkspace(workspaceId);
      await refreshMe();
      const section = path.split('/')[1] ?? 'skills';
      if (path.split('/').length > 2) navigate(`/${section}`);
    });
  return (
    <span class="workspace-switcher">
      <label for="workspace-switch" class="sr-only">
        Workspace
      </label>
      <select
        id="workspace-switch"
        value={me.workspace.id}
        disabled={switching.busy}
        onChange={(event) => void choose(event.currentTarget.value)}
      >
        {list.map((workspace) => (
          <option key={workspace.id} value={workspace.id}>
            {workspaceLabel(workspace)}
          </option>
        ))}
      </select>
      {switching.error && <span role="alert">{switching.error}</span>}
    </span>
  );
}

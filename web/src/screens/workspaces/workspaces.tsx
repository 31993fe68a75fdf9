import { useLoad } from '../../load';
import { listWorkspaces, switchWorkspace, type Workspace } from '../../requests/workspaces';
import { Link, useRoute } from '../../router';
import { refreshMe, useMe, workspaceLabel } from '../../session';
import { formatTime, Notice, useAction } from '../../ui';
import { WorkspaceCreate } from './workspaces-create';
import { WorkspaceMembers } from './workspaces-members';
import './workspaces.css';

/**
 * The person's workspaces: which one the session acts in, switching, creating team
 * workspaces, and (with `?members=<id>`) one workspace's members.
 */
export function WorkspacesScreen() {
  const me = useMe();
  const { query } = useRoute();
  const workspaces = useLoad(listWorkspaces, []);
  const switching = useAction();
  const membersOf = query.get('members');

  const switchTo = (workspace: Workspace) =>
    switching.run(async () => {
      await switchWorkspace(workspace.id);
      // The header and every screen read the current workspace from the session.
      await refreshMe();
    });

  return (
    <>
      {membersOf !== null && (
        <WorkspaceMembers workspaceId={membersOf} workspaces={workspaces.data} onChanged={workspaces.reload} />
      )}
      <section aria-labelledby="workspaces-list">
        <h2 id="workspaces-list">Your workspaces</h2>
        <p class="hint">The current workspace is where runs, artifacts and credits are counted and where new keys are bound.</p>
        {workspaces.error && <Notice kind="error">{workspaces.error}</Notice>}
        {switching.error && <Notice kind="error">{switching.error}</Notice>}
        {me && <Notice kind="info">You are working in {workspaceLabel(me.workspace)}.</Notice>}
        {workspaces.data === undefined ? (
          !workspaces.error && <p aria-busy="true">Loading workspaces…</p>
        ) : (
          <table class="stack workspaces-table">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Kind</th>
                <th scope="col">Your role</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {workspaces.data.map((workspace) => {
                const current = workspace.id === me?.workspace.id;
                return (
                  <tr key={workspace.id} class={current ? 'workspaces-current' : undefined}>
                    <th scope="row" data-label="Name">
                      {workspaceLabel(workspace)} {current && <span class="badge badge-active">Current</span>}
                    </th>
                    <td data-label="Kind">{workspace.personal ? 'Personal' : 'Team'}</td>
                    <td data-label="Your role">{workspace.role}</td>
                    <td data-label="Created">{formatTime(workspace.createdAt)}</td>
                    <td>
                      <div class="row workspaces-actions">
                        {!current && (
                          <button type="button" disabled={switching.busy} onClick={() => void switchTo(workspace)}>
                            Switch to {workspaceLabel(workspace)}
                          </button>
                        )}
                        {!workspace.personal && (
                          <Link href={`/workspaces?members=${encodeURIComponent(workspace.id)}`}>
                            Members of {workspaceLabel(workspace)}
                          </Link>
                        )}
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
      <WorkspaceCreate onCreated={workspaces.reload} />
    </>
  );
}

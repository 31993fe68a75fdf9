import { useState } from 'preact/hooks';
import type { WorkspaceRole } from '../../../../src/sdk/types';
import { changeRole, type Member, removeMember, renameWorkspace, type Workspace } from '../../requests/workspaces';
import { navigate } from '../../router';
import { refreshMe } from '../../session';
import { ConfirmButton, Notice, useAction } from '../../ui';

export const ROLE_WORDS: Record<WorkspaceRole, string> = { owner: 'Owner', admin: 'Admin', member: 'Member' };

/** The roles `yours` may give: only an owner makes (or unmakes) owners. */
export function rolesYouMayGive(yours: WorkspaceRole): WorkspaceRole[] {
  return yours === 'owner' ? ['member', 'admin', 'owner'] : ['member', 'admin'];
}

/** Whether `yours` may change or remove someone whose role is `theirs`. */
function mayManage(yours: WorkspaceRole, theirs: WorkspaceRole): boolean {
  return yours === 'owner' || (yours === 'admin' && theirs !== 'owner');
}

/**
 * One person of a team: their role, as a choice for whoever may change it, and a way out
 * (Remove for them, Leave for yourself). The server has the last word on every rule.
 */
export function MemberRow({
  workspace,
  member,
  isYou,
  soleOwner,
  onChanged,
}: {
  workspace: Workspace;
  member: Member;
  isYou: boolean;
  /** The only owner cannot leave: someone else must be made owner first. */
  soleOwner: boolean;
  onChanged: () => void;
}) {
  const action = useAction();
  const manageable = !isYou && mayManage(workspace.role, member.role);
  const selectId = `role-${member.userId}`;
  const setRole = (role: WorkspaceRole) =>
    action.run(async () => {
      await changeRole(workspace.id, member.userId, role);
      onChanged();
    });
  const remove = () =>
    action.run(async () => {
      await removeMember(workspace.id, member.userId);
      if (!isYou) return onChanged();
      // Left: the session is back in the personal workspace.
      await refreshMe();
      navigate('/workspaces');
    });
  return (
    <li class="workspaces-person">
      <span class="workspaces-email">
        {member.email}
        {isYou && ' (you)'}
      </span>
      {manageable ? (
        <span class="row">
          <label for={selectId} class="sr-only">
            Role of {member.email}
          </label>
          <select
            id={selectId}
            value={member.role}
            disabled={action.busy}
            onChange={(event) => void setRole(event.currentTarget.value as WorkspaceRole)}
          >
            {rolesYouMayGive(workspace.role).map((role) => (
              <option key={role} value={role}>
                {ROLE_WORDS[role]}
              </option>
            ))}
          </select>
          <ConfirmButton label={`Remove ${member.email}`} confirmLabel="Yes, remove" onConfirm={() => void remove()} />
        </span>
      ) : (
        <span class="row">
          <span class="badge">{ROLE_WORDS[member.role]}</span>
          {isYou && !soleOwner && (
            <ConfirmButton label="Leave this workspace" confirmLabel="Yes, leave" onConfirm={() => void remove()} />
          )}
          {isYou && soleOwner && <span class="hint">To leave, make someone else an owner first.</span>}
        </span>
      )}
      {action.error && <Notice kind="error">{action.error}</Notice>}
    </li>
  );
}

/** A team's name, changed by an owner or an admin. */
export function RenameWorkspace({ workspace, onRenamed }: { workspace: Workspace; onRenamed: () => void }) {
  const [name, setName] = useState(workspace.name ?? '');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    setDone(false);
    void action.run(async () => {
      await renameWorkspace(workspace.id, name);
      await refreshMe();
      setDone(true);
      onRenamed();
    });
  };
  return (
    <form onSubmit={submit} class="workspaces-rename">
      <h3>Name</h3>
      <label for="workspace-rename">New name</label>
      <input
        id="workspace-rename"
        required
        maxLength={100}
        value={name}
        onInput={(event) => setName(event.currentTarget.value)}
      />
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {done && <Notice kind="success">Renamed.</Notice>}
      <button type="submit" disabled={action.busy}>
        Rename
      </button>
    </form>
  );
}

import { useEffect, useRef, useState } from 'preact/hooks';
import type { WorkspaceRole } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { addMember, listMembers, type Member, type Workspace } from '../../requests/workspaces';
import { Link } from '../../router';
import { mailsResetLinks, useMe, workspaceLabel } from '../../session';
import { Notice, useAction } from '../../ui';
import { Invitations } from './workspaces-invitations';
import { MemberRow, RenameWorkspace, ROLE_WORDS, rolesYouMayGive } from './workspaces-people';

/** One workspace's people. Only workspaces in the person's own list are asked about. */
export function WorkspaceMembers({
  workspaceId,
  workspaces,
  onChanged,
}: {
  workspaceId: string;
  workspaces: Workspace[] | undefined;
  onChanged: () => void;
}) {
  if (workspaces === undefined) return null;
  const workspace = workspaces.find((candidate) => candidate.id === workspaceId);
  if (!workspace) {
    return (
      <section aria-labelledby="members-heading">
        <h2 id="members-heading">Workspace not found</h2>
        <Notice kind="error">There is no workspace with this id among yours.</Notice>
        <p>
          Ask its owner to add you, then find it in <Link href="/workspaces">your workspaces</Link>.
        </p>
      </section>
    );
  }
  return <KnownWorkspaceMembers key={workspace.id} workspace={workspace} onChanged={onChanged} />;
}

function KnownWorkspaceMembers({ workspace, onChanged }: { workspace: Workspace; onChanged: () => void }) {
  const me = useMe();
  const members = useLoad(() => listMembers(workspace.id), [workspace.id]);
  const name = workspaceLabel(workspace);
  const heading = useRef<HTMLHeadingElement>(null);
  // The panel opens above the list: focus moves to it so keyboard and screen reader users follow.
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return (
    <section aria-labelledby="members-heading" class="workspaces-members">
      <h2 id="members-heading" ref={heading} tabIndex={-1}>
        Members of {name}
      </h2>
      {members.error && <Notice kind="error">{members.error}</Notice>}
      <p class="hint">Credits are each person’s own: a run started in {name} spends the credits of whoever starts it.</p>
      {members.data && (
        <ul class="workspaces-people">
          {members.data.map((member) => (
            <MemberRow
              key={member.userId}
              workspace={workspace}
              member={member}
              isYou={member.userId === me?.user.id}
              soleOwner={member.role === 'owner' && members.data?.filter((one) => one.role === 'owner').length === 1}
              onChanged={() => {
                members.reload();
                onChanged();
              }}
            />
          ))}
        </ul>
      )}
      {workspace.role !== 'member' && !workspace.personal && <RenameWorkspace workspace={workspace} onRenamed={onChanged} />}
      {workspace.personal ? (
        <p class="hint">A personal workspace is yours alone. Create a team workspace to work with others.</p>
      ) : workspace.role === 'member' ? (
        <p class="hint">Only an owner or admin can add members.</p>
      ) : mailsResetLinks() ? (
        // A server that sends mail invites anyone by email; without mail, only people with an account can be added.
        <Invitations workspace={workspace} />
      ) : (
        <AddMember workspace={workspace} onAdded={members.reload} />
      )}
      <p>
        <Link href="/workspaces">Close the member list</Link>
      </p>
    </section>
  );
}

function AddMember({ workspace, onAdded }: { workspace: Workspace; onAdded: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<WorkspaceRole>('member');
  const [added, setAdded] = useState<Member | undefined>();
  const action = useAction();
  // Only an owner may make another owner; the server refuses it to an admin anyway.
  const roles = rolesYouMayGive(workspace.role);
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      setAdded(undefined);
      setAdded(await addMember(workspace.id, email.trim(), role));
      setEmail('');
      onAdded();
    });
  };
  return (
    <form onSubmit={submit}>
      <h3>Add a member</h3>
      <label for="member-email">Email</label>
      <input
        id="member-email"
        type="email"
        required
        autoComplete="off"
        value={email}
        aria-describedby="member-email-hint"
        onInput={(event) => setEmail(event.currentTarget.value)}
      />
      <p id="member-email-hint" class="hint">
        The person must already have a Skillet account with this email.
      </p>
      <label for="member-role">Role</label>
      <select id="member-role" value={role} onChange={(event) => setRole(event.currentTarget.value as WorkspaceRole)}>
        {roles.map((option) => (
          <option key={option} value={option}>
            {ROLE_WORDS[option]}
          </option>
        ))}
      </select>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {added && (
        <Notice kind="success">
          Added {added.email} as {added.role}.
        </Notice>
      )}
      <button type="submit" class="primary workspaces-add" disabled={action.busy}>
        Add member
      </button>
    </form>
  );
}

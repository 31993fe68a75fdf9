import { useState } from 'preact/hooks';
import type { WorkspaceRole } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { type Invitation, inviteByEmail, listInvitations, resendInvitation, revokeInvitation } from '../../requests/invitations';
import type { Workspace } from '../../requests/workspaces';
import { ConfirmButton, formatTime, Notice, useAction } from '../../ui';
import { ROLE_WORDS, rolesYouMayGive } from './workspaces-people';

/** Inviting people by email, and the invitations still open, for a team's owners and admins. */
export function Invitations({ workspace }: { workspace: Workspace }) {
  const invitations = useLoad(() => listInvitations(workspace.id), [workspace.id]);
  return (
    <>
      <InviteForm workspace={workspace} onInvited={invitations.reload} />
      <div class="workspaces-invitations">
        <h3>Invitations waiting for an answer</h3>
        {invitations.error && <Notice kind="error">{invitations.error}</Notice>}
        {invitations.data?.length === 0 && <p class="hint">None. People you invite show here until they join.</p>}
        {invitations.data && invitations.data.length > 0 && (
          <ul class="workspaces-people">
            {invitations.data.map((invitation) => (
              <InvitationRow key={invitation.id} workspace={workspace} invitation={invitation} onChanged={invitations.reload} />
            ))}
          </ul>
        )}
      </div>
    </>
  );
}

function InviteForm({ workspace, onInvited }: { workspace: Workspace; onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<WorkspaceRole>('member');
  const [sent, setSent] = useState<Invitation | undefined>();
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      setSent(undefined);
      setSent(await inviteByEmail(workspace.id, email.trim(), role));
      setEmail('');
      onInvited();
    });
  };
  return (
    <form onSubmit={submit}>
      <h3>Invite someone</h3>
      <label for="invite-email">Email</label>
      <input
        id="invite-email"
        type="email"
        required
        autoComplete="off"
        value={email}
        aria-describedby="invite-email-hint"
        onInput={(event) => setEmail(event.currentTarget.value)}
      />
      <p id="invite-email-hint" class="hint">
        We mail them a link to join. It works once, for a week; they can create an account with it if they have none.
      </p>
      <label for="invite-role">Role</label>
      <select id="invite-role" value={role} onChange={(event) => setRole(event.currentTarget.value as WorkspaceRole)}>
        {rolesYouMayGive(workspace.role).map((option) => (
          <option key={option} value={option}>
            {ROLE_WORDS[option]}
          </option>
        ))}
      </select>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {sent && (
        <Notice kind="success">
          Invitation sent to {sent.email} as {ROLE_WORDS[sent.role].toLowerCase()}.
        </Notice>
      )}
      <button type="submit" class="primary workspaces-add" disabled={action.busy}>
        Send invitation
      </button>
    </form>
  );
}

function InvitationRow({
  workspace,
  invitation,
  onChanged,
}: {
  workspace: Workspace;
  invitation: Invitation;
  onChanged: () => void;
}) {
  const action = useAction();
  const [resent, setResent] = useState(false);
  const resend = () =>
    action.run(async () => {
      setResent(false);
      await resendInvitation(workspace.id, invitation.id);
      setResent(true);
      onChanged();
    });
  const revoke = () =>
    action.run(async () => {
      await revokeInvitation(workspace.id, invitation.id);
      onChanged();
    });
  return (
    <li class="workspaces-person">
      <span class="workspaces-email">{invitation.email}</span> <span class="badge">{ROLE_WORDS[invitation.role]}</span>{' '}
      <span class="hint">
        {invitation.status === 'expired'
          ? 'The link has expired: resend it to give them a new one.'
          : `The link works until ${formatTime(invitation.expiresAt)}.`}
      </span>
      <span class="row">
        <button type="button" disabled={action.busy} onClick={() => void resend()}>
          Resend<span class="sr-only"> to {invitation.email}</span>
        </button>
        <ConfirmButton
          label={
            <>
              Revoke<span class="sr-only"> the invitation of {invitation.email}</span>
            </>
          }
          confirmLabel="Yes, revoke"
          disabled={action.busy}
          onConfirm={() => void revoke()}
        />
      </span>
      {resent && <Notice kind="success">A new link is on its way to {invitation.email}; the old one no longer works.</Notice>}
      {action.error && <Notice kind="error">{action.error}</Notice>}
    </li>
  );
}

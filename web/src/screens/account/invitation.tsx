import { useState } from 'preact/hooks';
import type { Me } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { acceptInvitation, type InvitationPreview, previewInvitation } from '../../requests/invitations';
import { Link, navigate } from '../../router';
import { refreshMe, signIn, signOut, signUp, useMe } from '../../session';
import { formatTime, Notice, useAction } from '../../ui';

/**
 * The token of an invitation link rides in the address's fragment, which browsers never
 * send to a server; it is read once and taken out of the address bar.
 */
function tokenFromAddress(): string {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';
  if (token !== '') window.history.replaceState(null, '', window.location.pathname);
  return token;
}

/** Joining a team through a mailed link: signed in as the invited address, or after signing in or up with it. */
export function InvitationScreen() {
  const [token] = useState(tokenFromAddress);
  const preview = useLoad(() => (token === '' ? Promise.resolve(undefined) : previewInvitation(token)), [token]);
  const me = useMe();
  return (
    <main id="main" class="sign-in">
      {token === '' ? (
        <>
          <h1>Invitation</h1>
          <Notice kind="error">
            This page needs the whole invitation link. Open the link from the mail again, or ask for a new invitation.
          </Notice>
        </>
      ) : preview.error ? (
        <>
          <h1>This invitation cannot be used</h1>
          <Notice kind="error">{preview.error}</Notice>
          <p>
            <Link href="/">Go to Skillet</Link>
          </p>
        </>
      ) : preview.data === undefined || me === undefined ? (
        <>
          <h1>Invitation</h1>
          <p aria-busy="true">Loading the invitation…</p>
        </>
      ) : (
        <Offer token={token} invitation={preview.data} me={me} />
      )}
    </main>
  );
}

function Offer({ token, invitation, me }: { token: string; invitation: InvitationPreview; me: Me | null }) {
  const action = useAction();
  const join = async () => {
    const workspace = await acceptInvitation(token);
    await refreshMe();
    navigate(`/workspaces?members=${encodeURIComponent(workspace.id)}`, { replace: true });
  };
  const signedInAsInvitee = me !== null && me.user.email.toLowerCase() === invitation.email;
  return (
    <>
      <h1>Join {invitation.workspaceName}</h1>
      <p>
        {invitation.invitedBy ?? 'A member'} invited <strong>{invitation.email}</strong> to the Skillet workspace{' '}
        {invitation.workspaceName} as {invitation.role === 'member' ? 'a member' : `an ${invitation.role}`}. The link works once,
        until {formatTime(invitation.expiresAt)}.
      </p>
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {signedInAsInvitee ? (
        <button type="button" class="primary" disabled={action.busy} onClick={() => void action.run(join)}>
          Join {invitation.workspaceName}
        </button>
      ) : me !== null ? (
        <>
          <Notice kind="info">
            You are signed in as {me.user.email}, but this invitation is for {invitation.email}. Sign out, then sign in or create
            an account with {invitation.email}.
          </Notice>
          <button type="button" disabled={action.busy} onClick={() => void action.run(signOut)}>
            Sign out
          </button>
        </>
      ) : (
        <SignInToJoin email={invitation.email} busy={action.busy} onAccount={(enter) => action.run(() => enter().then(join))} />
      )}
    </>
  );
}

/** Creates the invited address's account (or signs in to it), then joins, in one step. */
function SignInToJoin({
  email,
  busy,
  onAccount,
}: {
  email: string;
  busy: boolean;
  onAccount: (enter: () => Promise<void>) => Promise<void>;
}) {
  const [hasAccount, setHasAccount] = useState(false);
  const [password, setPassword] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    void onAccount(() => (hasAccount ? signIn(email, password) : signUp(email, password)));
  };
  return (
    <>
      <form onSubmit={submit} aria-labelledby="join-heading">
        <h2 id="join-heading">{hasAccount ? 'Sign in to join' : 'Create your account to join'}</h2>
        <label for="join-email">Email</label>
        <input id="join-email" type="email" autoComplete="username" readOnly value={email} />
        <label for="join-password">{hasAccount ? 'Password' : 'Choose a password'}</label>
        <input
          id="join-password"
          type="password"
          autoComplete={hasAccount ? 'current-password' : 'new-password'}
          required
          minLength={hasAccount ? 1 : 8}
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
        {!hasAccount && <p class="hint">At least 8 characters.</p>}
        <button type="submit" class="primary" disabled={busy}>
          {hasAccount ? 'Sign in and join' : 'Create account and join'}
        </button>
      </form>
      <p>
        {hasAccount ? `No account with ${email} yet?` : `Already have an account with ${email}?`}{' '}
        <button type="button" class="link" onClick={() => setHasAccount(!hasAccount)}>
          {hasAccount ? 'Create one' : 'Sign in instead'}
        </button>
      </p>
    </>
  );
}

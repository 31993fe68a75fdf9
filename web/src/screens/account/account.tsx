import { useState } from 'preact/hooks';
import { useLoad } from '../../load';
import {
  type ConnectedApp,
  changePassword,
  disconnectApp,
  endSession,
  listConnectedApps,
  listSessions,
  type Session,
} from '../../requests/account';
import { listWorkspaces } from '../../requests/workspaces';
import { ConfirmButton, formatTime, Notice, useAction } from '../../ui';
import { workspaceNameOf } from '../workspaces/workspaces-shared';

function ChangePassword() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState<string | undefined>();
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    setDone(undefined);
    void action.run(async () => {
      const { endedSessions } = await changePassword(current, next);
      setCurrent('');
      setNext('');
      setDone(
        endedSessions === 0
          ? 'Password changed.'
          : `Password changed. ${endedSessions} other ${endedSessions === 1 ? 'session was' : 'sessions were'} signed out.`,
      );
    });
  };
  return (
    <section aria-labelledby="password-heading">
      <h2 id="password-heading">Password</h2>
      <form onSubmit={submit}>
        <label for="current-password">Current password</label>
        <input
          id="current-password"
          type="password"
          autoComplete="current-password"
          required
          value={current}
          onInput={(event) => setCurrent(event.currentTarget.value)}
        />
        <label for="new-password">New password</label>
        <input
          id="new-password"
          type="password"
          autoComplete="new-password"
          required
          minLength={8}
          value={next}
          aria-describedby="new-password-hint"
          onInput={(event) => setNext(event.currentTarget.value)}
        />
        <p id="new-password-hint" class="hint">
          At least 8 characters. Everywhere else you are signed in gets signed out; your API keys keep working.
        </p>
        {action.error && <Notice kind="error">{action.error}</Notice>}
        {done && <Notice kind="success">{done}</Notice>}
        <button type="submit" class="primary" disabled={action.busy}>
          Change password
        </button>
      </form>
    </section>
  );
}

function SessionRow({ session, onEnded }: { session: Session; onEnded: () => void }) {
  const action = useAction();
  return (
    <li>
      Signed in {formatTime(session.createdAt)}, until {formatTime(session.expiresAt)}{' '}
      {session.current ? (
        <span class="badge badge-active">This browser</span>
      ) : (
        <ConfirmButton
          label="Sign this session out"
          confirmLabel="Yes, sign it out"
          disabled={action.busy}
          onConfirm={() =>
            void action.run(async () => {
              await endSession(session.id);
              onEnded();
            })
          }
        />
      )}
      {action.error && <Notice kind="error">{action.error}</Notice>}
    </li>
  );
}

function Sessions() {
  const sessions = useLoad(listSessions, []);
  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Where you are signed in</h2>
      <p class="hint">Each sign-in to the app is a session. Sign out one you do not recognise, then change your password.</p>
      {sessions.error && <Notice kind="error">{sessions.error}</Notice>}
      {sessions.data && (
        <ul class="account-sessions">
          {sessions.data.map((session) => (
            <SessionRow key={session.id} session={session} onEnded={sessions.reload} />
          ))}
        </ul>
      )}
    </section>
  );
}

const ACCESS_WORDS: Record<string, string> = { read: 'see your work', write: 'run skills and change things' };

function accessOf(app: ConnectedApp): string {
  const words = app.scopes.map((scope) => ACCESS_WORDS[scope]).filter((word): word is string => word !== undefined);
  return words.length > 0 ? words.join(' and ') : 'sign you in';
}

function AppRow({ app, workspace, onGone }: { app: ConnectedApp; workspace: string; onGone: () => void }) {
  const action = useAction();
  return (
    <li>
      <strong>{app.name}</strong> may {accessOf(app)} in {workspace}, since {formatTime(app.connectedAt)}.{' '}
      <ConfirmButton
        label={`Disconnect ${app.name}`}
        confirmLabel="Yes, disconnect"
        disabled={action.busy}
        onConfirm={() =>
          void action.run(async () => {
            await disconnectApp(app.id);
            onGone();
          })
        }
      />
      {action.error && <Notice kind="error">{action.error}</Notice>}
    </li>
  );
}

function ConnectedApps() {
  const apps = useLoad(listConnectedApps, []);
  const workspaces = useLoad(listWorkspaces, []);
  return (
    <section aria-labelledby="apps-heading">
      <h2 id="apps-heading">Connected apps</h2>
      <p class="hint">Apps you allowed to act for you (editors, agents, other services). Disconnecting one stops it at once.</p>
      {apps.error && <Notice kind="error">{apps.error}</Notice>}
      {apps.data && apps.data.length === 0 && <p class="muted">No app is connected.</p>}
      {apps.data && apps.data.length > 0 && (
        <ul class="account-apps">
          {apps.data.map((app) => (
            <AppRow key={app.id} app={app} workspace={workspaceNameOf(workspaces.data, app.workspaceId)} onGone={apps.reload} />
          ))}
        </ul>
      )}
    </section>
  );
}

/** The signed-in person's own account: their password, their sessions and the apps they connected. */
export function AccountScreen() {
  return (
    <>
      <ChangePassword />
      <Sessions />
      <ConnectedApps />
    </>
  );
}

import { useState } from 'preact/hooks';
import { resetPassword } from '../../requests/account';
import { navigate } from '../../router';
import { Notice, useAction } from '../../ui';

/**
 * The token of a reset link rides in the address's fragment, which browsers never send to
 * a server; it is read once and taken out of the address bar.
 */
function tokenFromAddress(): string {
  const token = new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';
  if (token !== '') window.history.replaceState(null, '', window.location.pathname);
  return token;
}

/** Choosing a new password with a one-time link, signed in or not. */
export function ResetPasswordScreen() {
  const [token] = useState(tokenFromAddress);
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await resetPassword(token, password);
      setDone(true);
    });
  };
  return (
    <main id="main" class="sign-in">
      <h1>Choose a new password</h1>
      {token === '' ? (
        <Notice kind="error">
          This page needs the whole reset link. Open the link you were given again, or ask for a new one.
        </Notice>
      ) : done ? (
        <>
          <Notice kind="success">Your password is changed, and every session was signed out.</Notice>
          <button type="button" class="primary" onClick={() => navigate('/', { replace: true })}>
            Sign in
          </button>
        </>
      ) : (
        <form onSubmit={submit}>
          <label for="reset-password">New password</label>
          <input
            id="reset-password"
            type="password"
            autoComplete="new-password"
            required
            minLength={8}
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
          <p class="hint">At least 8 characters.</p>
          {action.error && <Notice kind="error">{action.error}</Notice>}
          <button type="submit" class="primary" disabled={action.busy}>
            Set the new password
          </button>
        </form>
      )}
    </main>
  );
}

import { useState } from 'preact/hooks';
import { mailResetLink } from '../../requests/session';
import { mailsResetLinks, signIn, signUp } from '../../session';
import { Notice, useAction } from '../../ui';

/** Asks for a reset link by mail; the answer is the same whether or not the address has an account. */
function MailResetLink({ email }: { email: string }) {
  const [address, setAddress] = useState(email);
  const [sent, setSent] = useState(false);
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      await mailResetLink(address);
      setSent(true);
    });
  };
  if (sent) {
    return (
      <Notice kind="success">
        If an account has the address {address}, a link is on its way to it. It works once, for an hour.
      </Notice>
    );
  }
  return (
    <form onSubmit={submit} aria-label="Mail me a reset link">
      <label for="reset-email">Your email</label>
      <input
        id="reset-email"
        type="email"
        autoComplete="email"
        required
        value={address}
        onInput={(event) => setAddress(event.currentTarget.value)}
      />
      {action.error && <Notice kind="error">{action.error}</Notice>}
      <button type="submit" disabled={action.busy}>
        Mail me a reset link
      </button>
    </form>
  );
}

/** Sign in or create an account; after either, the page the person asked for shows. */
export function SignInScreen() {
  const [mode, setMode] = useState<'sign-in' | 'sign-up'>('sign-in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  const signingUp = mode === 'sign-up';
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(() => (signingUp ? signUp(email, password) : signIn(email, password)));
  };
  return (
    <main id="main" class="sign-in">
      <h1>Skillet</h1>
      <p class="lede">Run skills, watch them live, keep what they make.</p>
      <form onSubmit={submit} aria-labelledby="sign-in-heading">
        <h2 id="sign-in-heading">{signingUp ? 'Create an account' : 'Sign in'}</h2>
        <label for="email">Email</label>
        <input
          id="email"
          type="email"
          autoComplete="email"
          required
          value={email}
          onInput={(event) => setEmail(event.currentTarget.value)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          type="password"
          autoComplete={signingUp ? 'new-password' : 'current-password'}
          required
          minLength={signingUp ? 8 : 1}
          value={password}
          onInput={(event) => setPassword(event.currentTarget.value)}
        />
        {signingUp && <p class="hint">At least 8 characters.</p>}
        {action.error && <Notice kind="error">{action.error}</Notice>}
        <button type="submit" class="primary" disabled={action.busy}>
          {signingUp ? 'Create account' : 'Sign in'}
        </button>
      </form>
      {!signingUp && (
        <details class="forgot">
          <summary>Forgot your password?</summary>
          {mailsResetLinks() ? (
            <MailResetLink email={email} />
          ) : (
            <p>
              Ask whoever runs this Skillet server for a password reset link. It works once, for an hour, and lets you choose a
              new password.
            </p>
          )}
        </details>
      )}
      <p>
        {signingUp ? 'Already have an account?' : 'New here?'}{' '}
        <button
          type="button"
          class="link"
          onClick={() => {
            action.clear();
            setMode(signingUp ? 'sign-in' : 'sign-up');
          }}
        >
          {signingUp ? 'Sign in' : 'Create an account'}
        </button>
      </p>
    </main>
  );
}

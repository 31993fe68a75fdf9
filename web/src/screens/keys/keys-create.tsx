import { useEffect, useRef, useState } from 'preact/hooks';
import type { CreatedApiKey } from '../../../../src/sdk/types';
import { createKey } from '../../requests/keys';
import { useMe, workspaceLabel } from '../../session';
import { CopyButton, Notice, useAction } from '../../ui';

/** Creates a key in the workspace the session acts in (the server binds it there). */
export function KeyCreate({ onCreated }: { onCreated: (key: CreatedApiKey) => void }) {
  const me = useMe();
  const [label, setLabel] = useState('');
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      onCreated(await createKey(label.trim()));
      setLabel('');
    });
  };
  return (
    <section aria-labelledby="keys-create">
      <h2 id="keys-create">Create a key</h2>
      <form onSubmit={submit}>
        <label for="key-label">Label</label>
        <div class="row keys-create-row">
          <input
            id="key-label"
            required
            maxLength={100}
            autoComplete="off"
            value={label}
            aria-describedby="key-label-hint"
            onInput={(event) => setLabel(event.currentTarget.value)}
          />
          <button type="submit" class="primary" disabled={action.busy}>
            Create key
          </button>
        </div>
        <p id="key-label-hint" class="hint">
          A name you will recognise, such as “laptop CLI” or “CI”. The key acts in{' '}
          {me ? workspaceLabel(me.workspace) : 'your current workspace'}.
        </p>
        {action.error && <Notice kind="error">{action.error}</Notice>}
      </form>
    </section>
  );
}

/** The one and only showing of a new key's secret. */
export function NewKeyNotice({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Focus moves here so keyboard and screen reader users land on the secret they must copy.
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return (
    <section class="keys-new" aria-labelledby="keys-new">
      <h2 id="keys-new" ref={heading} tabIndex={-1}>
        New key “{created.label}”
      </h2>
      <Notice kind="info">Copy this key now: it will not be shown again. Skillet keeps only a fingerprint of it.</Notice>
      <label for="key-plaintext">Your new API key</label>
      <div class="row keys-new-row">
        <input id="key-plaintext" class="mono" readOnly value={created.key} onFocus={(event) => event.currentTarget.select()} />
        <CopyButton text={created.key} label="Copy key" />
      </div>
      <p class="hint">
        Send it as the <code>x-api-key</code> header, or set <code>SKILLET_API_KEY</code> for the command line.
      </p>
      <button type="button" onClick={onDone}>
        I have saved it
      </button>
    </section>
  );
}

import { useState } from 'preact/hooks';
import { useLoad } from '../../load';
import { getByok, removeByokKey, saveByokKey } from '../../requests/byok';
import { ConfirmButton, Notice, useAction } from '../../ui';

/** Only a key stored or removed changes it; runs starting and ending do not. */
const BYOK_CHANGES = ['byok'];

const PROVIDER_NAMES: Record<string, string> = { anthropic: 'Anthropic', openai: 'OpenAI' };

/**
 * The person's own model provider key. The key goes to the server once and is never asked
 * back: the server answers with a masked preview only, and the field is emptied on success
 * so the key does not linger in the page.
 */
export function ByokSection({ onChanged }: { onChanged: () => void }) {
  const status = useLoad(getByok, [], BYOK_CHANGES);
  const [key, setKey] = useState('');
  const [done, setDone] = useState<string | undefined>();
  const action = useAction();

  const save = (event: Event) => {
    event.preventDefault();
    setDone(undefined);
    void action.run(async () => {
      await saveByokKey(key);
      setKey('');
      setDone('Key saved. It is stored encrypted; only its preview is shown.');
      status.reload();
      onChanged();
    });
  };

  const remove = () => {
    setDone(undefined);
    void action.run(async () => {
      await removeByokKey();
      setDone('Key removed. Model calls are paid in Ds again.');
      status.reload();
      onChanged();
    });
  };

  const current = status.data;
  return (
    <section aria-labelledby="byok-title">
      <h2 id="byok-title">Your own model key</h2>
      <p class="hint">
        With your own Anthropic or OpenAI key (it starts with <code>sk-</code>), model calls run on your provider account and cost
        0 Ds.
      </p>
      {status.error && <Notice kind="error">Could not load your key’s status: {status.error}</Notice>}
      {current?.hasKey && (
        <dl class="byok-status">
          <dt>Stored key</dt>
          <dd class="mono">{current.keyPreview}</dd>
          <dt>Provider</dt>
          <dd>{current.provider ? (PROVIDER_NAMES[current.provider] ?? current.provider) : '—'}</dd>
        </dl>
      )}
      {current && !current.hasKey && <p>No key stored.</p>}
      {current?.hasKey && <p class="hint">Saving another key replaces the stored one.</p>}
      {done && <Notice kind="success">{done}</Notice>}
      {action.error && <Notice kind="error">{action.error}</Notice>}
      <form class="byok-form" onSubmit={save}>
        <label for="byok-key">Provider key</label>
        <input
          id="byok-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <div class="row byok-actions">
          <button type="submit" class="primary" disabled={action.busy || key === ''}>
            Save key
          </button>
          {current?.hasKey && (
            <ConfirmButton label="Remove key" confirmLabel="Yes, remove the key" disabled={action.busy} onConfirm={remove} />
          )}
        </div>
      </form>
    </section>
  );
}

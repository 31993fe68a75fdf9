import { useState } from 'preact/hooks';
import { navigate } from '../../router';

/** The typed code goes into the address, so the page can be reloaded or shared with oneself. */
export function CodeForm({ submitLabel = 'Look up code' }: { submitLabel?: string }) {
  const [typed, setTyped] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    const value = typed.trim();
    if (value !== '') navigate(`/activate?code=${encodeURIComponent(value)}`);
  };
  return (
    <form class="activate-code" onSubmit={submit}>
      <label for="activate-code">Code shown on the device</label>
      <div class="row">
        <input
          id="activate-code"
          class="mono"
          required
          maxLength={64}
          autoComplete="off"
          autoCapitalize="characters"
          spellcheck={false}
          value={typed}
          onInput={(event) => setTyped(event.currentTarget.value)}
        />
        <button type="submit" class="primary">
          {submitLabel}
        </button>
      </div>
    </form>
  );
}

import { useEffect, useRef, useState } from 'preact/hooks';
import type { HistoryItem } from '../../../../src/sdk/types';
import { messageOf } from '../../api';
import { rerunExecution } from '../../requests/executions';
import { navigate } from '../../router';
import { Notice } from '../../ui';

/** A rerun of a completed run with its input to edit first; the new run opens when it starts. */
export function RerunForm({ item, onClose }: { item: HistoryItem; onClose: () => void }) {
  const [input, setInput] = useState(item.inputText);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const field = useRef<HTMLTextAreaElement>(null);
  // The caller keys this form by execution, so each run's form starts from its own input.
  useEffect(() => field.current?.focus(), []);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = await rerunExecution(item.executionId, input);
      navigate(`/runs/${encodeURIComponent(answer.executionId)}`);
    } catch (thrown) {
      setError(messageOf(thrown));
      setBusy(false);
    }
  };
  return (
    <form class="card rerun-form" onSubmit={submit} aria-labelledby="rerun-heading">
      <h2 id="rerun-heading">Rerun {item.skillName}</h2>
      <label for="rerun-input">Input for the rerun</label>
      <textarea id="rerun-input" ref={field} required value={input} onInput={(event) => setInput(event.currentTarget.value)} />
      {error && <Notice kind="error">{error}</Notice>}
      <div class="row">
        <button type="submit" class="primary" disabled={busy || input.trim() === ''}>
          Start rerun
        </button>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
    </form>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { priceLabel } from '../../../../src/sdk/skill-price';
import type { SkillItem } from '../../../../src/sdk/types';
import { messageOf } from '../../api';
import { cancelExecution, interruptExecution, sendMessage } from '../../requests/executions';
import { findSkill } from '../../requests/skills';
import { Notice, useAction } from '../../ui';

/**
 * Cancel and Interrupt, shown while the run works, each said in words. The server stops the
 * run the same way for both (stop reason `interrupt`, the charge kept); Interrupt also records
 * a user.interrupt event, and is the one to press when a follow-up message is meant to come.
 */
export function RunningControls({ id, onCancelled }: { id: string; onCancelled: () => void }) {
  const action = useAction();
  const [told, setTold] = useState<string | undefined>();
  const cancel = () =>
    action.run(async () => {
      setTold(undefined);
      const answer = await cancelExecution(id);
      if (answer.success) onCancelled();
      else setTold(answer.message);
    });
  const interrupt = () =>
    action.run(async () => {
      setTold(undefined);
      await interruptExecution(id);
    });
  return (
    <>
      {/* What each does, as the server does it: both stop the run at once (stop reason interrupt). */}
      <ul class="run-controls">
        <li>
          <button type="button" class="danger" disabled={action.busy} onClick={cancel} aria-describedby="run-cancel-hint">
            Cancel
          </button>
          <span id="run-cancel-hint" class="hint">
            Stops the run now and ends it here. What it has cost so far stays paid.
          </span>
        </li>
        <li>
          <button type="button" disabled={action.busy} onClick={interrupt} aria-describedby="run-interrupt-hint">
            Interrupt
          </button>
          <span id="run-interrupt-hint" class="hint">
            Stops the run now too and notes it in the events, so you can send a follow-up message with new instructions. That
            starts a new run, at the skill's price again.
          </span>
        </li>
      </ul>
      {told && <Notice kind="info">{told}</Notice>}
      {action.error && <Notice kind="error">{action.error}</Notice>}
    </>
  );
}

type Priced = Pick<SkillItem, 'price' | 'modelUse'>;

/** The price of a run of the skill, once known (undefined while loading, or when it cannot be found). */
function useSkillPrice(slug: string | undefined): Priced | undefined {
  const [price, setPrice] = useState<Priced | undefined>();
  useEffect(() => {
    let current = true;
    setPrice(undefined);
    if (slug === undefined) return;
    findSkill(slug).then(
      (skill) => current && setPrice(skill ?? undefined),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [slug]);
  return price;
}

/** What resuming says: each run a message starts is paid for, so a priced skill says so before it is pressed. */
function resumeHint(skill: Priced | undefined): string {
  if (skill === undefined || (skill.price === 0 && skill.modelUse === null))
    return 'The run was stopped. Send a message to resume it.';
  return `The run was stopped. Send a message to resume it: that starts a new run, which costs the skill's price again (${skill.modelUse ? priceLabel(skill) : `${skill.price} Ds`}).`;
}

/**
 * The message that starts an idle execution: the first run of one never started, or the
 * resume of one interrupted. The stream is opened first, so the run it starts is watched.
 */
export function MessageForm({
  id,
  skillSlug,
  phase,
  ensureOpen,
  onSent,
}: {
  id: string;
  skillSlug: string | undefined;
  phase: 'new' | 'interrupted';
  ensureOpen: () => Promise<void>;
  onSent: () => void;
}) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const resuming = phase === 'interrupted';
  const price = useSkillPrice(resuming ? skillSlug : undefined);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await ensureOpen();
      await sendMessage(id, text);
      setText('');
      onSent();
    } catch (thrown) {
      setError(messageOf(thrown));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={submit}>
      <label for="run-message">{resuming ? 'Follow-up message' : 'Input'}</label>
      <textarea id="run-message" required value={text} onInput={(input) => setText(input.currentTarget.value)} />
      <p class="hint">{resuming ? resumeHint(price) : 'This run has not started. Send its input to start it.'}</p>
      {error && <Notice kind="error">{error}</Notice>}
      <button type="submit" class="primary" disabled={busy || text.trim() === ''}>
        {resuming ? (price?.price ? `Resume (${price.price} Ds)` : 'Resume') : 'Start'}
      </button>
    </form>
  );
}

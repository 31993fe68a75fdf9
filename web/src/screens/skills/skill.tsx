import { useEffect, useState } from 'preact/hooks';
import { SkilletError } from '../../../../src/sdk/errors';
import { modelUseNote, priceLabel } from '../../../../src/sdk/skill-price';
import type { HistoryItem, SkillItem } from '../../../../src/sdk/types';
import { messageOf } from '../../api';
import { useLoad } from '../../load';
import { runningExecution, startRun } from '../../requests/executions';
import { deleteFile, uploadFile } from '../../requests/files';
import { findSkill } from '../../requests/skills';
import { Link, navigate } from '../../router';
import { useMe, workspaceLabel } from '../../session';
import { Notice, useAction } from '../../ui';
import { BusyPanel, cancelRunning, useDraft, waitUntilEnded } from '../run/run-busy';
import { DropZone, FILES_ONLY_INPUT, RUN_FILES_MAX } from '../run/run-files';
import { InputFields } from '../run/run-input-fields';
import { RemoveSkill } from './skill-remove';
import { YoursBadge } from './skills';
import './skills.css';

/**
 * Uploads the files one by one, saying which goes, then creates and starts the run with them.
 * When anything fails, the files already uploaded are deleted again rather than left to expire.
 */
async function runWithFiles(slug: string, input: string, files: File[], onProgress: (text: string) => void) {
  const uploaded: string[] = [];
  try {
    for (const [index, file] of files.entries()) {
      onProgress(`Uploading ${file.name} (${index + 1} of ${files.length})…`);
      try {
        uploaded.push((await uploadFile(file)).id);
      } catch (thrown) {
        throw new Error(`${file.name} was not uploaded. ${messageOf(thrown)}`);
      }
    }
    onProgress('Starting…');
    return await startRun(slug, input, uploaded);
  } catch (thrown) {
    void Promise.all(uploaded.map((id) => deleteFile(id).catch(() => undefined)));
    throw thrown;
  }
}

const isWorkspaceBusy = (error: unknown) => error instanceof SkilletError && error.code === 'EXECUTION_RUNNING';

function RunForm({ skill }: { skill: SkillItem }) {
  const [input, setInput] = useDraft(skill.slug, skill.examples[0] ?? '');
  const fields = skill.inputSchema?.type === 'object' ? skill.inputSchema : undefined;
  const [files, setFiles] = useState<File[]>([]);
  const [progress, setProgress] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  // A run refused for want of credits leads to where they are bought.
  const [needsCredits, setNeedsCredits] = useState(false);
  const [running, setRunning] = useState<HistoryItem | undefined>();
  const [waiting, setWaiting] = useState<AbortController | undefined>();
  const action = useAction();
  const noInput = input.trim() === '';
  useEffect(() => () => waiting?.abort(), [waiting]);

  // Input stays required by the API: a person who gave only files means "these".
  const textToRun = () => (noInput && files.length > 0 ? FILES_ONLY_INPUT : input);
  const start = async (text: string) => {
    try {
      const started = await runWithFiles(skill.slug, text, files, setProgress);
      setInput('');
      navigate(`/runs/${encodeURIComponent(started.executionId)}`);
    } catch (thrown) {
      // Another run started since the check: the same panel as the check's, the input kept.
      const inTheWay = isWorkspaceBusy(thrown) ? await runningExecution().catch(() => undefined) : undefined;
      if (inTheWay) {
        setRunning(inTheWay);
        return;
      }
      setError(messageOf(thrown));
      setNeedsCredits(thrown instanceof SkilletError && thrown.status === 402);
    } finally {
      setProgress(undefined);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    setError(undefined);
    if (files.length > RUN_FILES_MAX) {
      setError(`A run can be given at most ${RUN_FILES_MAX} files. Remove some and run again.`);
      return;
    }
    const text = textToRun();
    setInput(text);
    void action.run(async () => {
      // One run at a time per workspace: nothing is created while another is going.
      const inTheWay = await runningExecution();
      setRunning(inTheWay);
      if (inTheWay === undefined) await start(text);
    });
  };
  const cancelAndRun = (inTheWay: HistoryItem) =>
    void action.run(async () => {
      setProgress(`Cancelling the ${inTheWay.skillName} run…`);
      await cancelRunning(inTheWay.executionId);
      setRunning(undefined);
      await start(textToRun());
    });
  const waitThenRun = (inTheWay: HistoryItem) => {
    const controller = new AbortController();
    setWaiting(controller);
    waitUntilEnded(inTheWay.executionId, controller.signal).then(
      () => {
        setWaiting(undefined);
        setRunning(undefined);
        void action.run(() => start(textToRun()));
      },
      (thrown: unknown) => {
        setWaiting(undefined);
        if (!controller.signal.aborted) setError(messageOf(thrown));
      },
    );
  };
  return (
    <form class="card" onSubmit={submit}>
      {fields ? (
        <InputFields schema={fields} text={input} disabled={action.busy} onChange={setInput} />
      ) : (
        <>
          <label for="skill-input">Input</label>
          <textarea
            id="skill-input"
            required={files.length === 0}
            aria-describedby="skill-input-hint"
            value={input}
            onInput={(event) => setInput(event.currentTarget.value)}
          />
        </>
      )}
      <p id="skill-input-hint" class="hint">
        {skill.input} {fields ? '' : 'Up to 100 KB.'}
      </p>
      {skill.takesFiles && <DropZone files={files} onChange={setFiles} disabled={action.busy} />}
      {running && (
        <BusyPanel
          running={running}
          waiting={waiting !== undefined}
          busy={action.busy}
          onCancelAndRun={() => cancelAndRun(running)}
          onWait={() => waitThenRun(running)}
          onStopWaiting={() => waiting?.abort()}
        />
      )}
      {progress && <Notice kind="info">{progress}</Notice>}
      {action.error && <Notice kind="error">{action.error}</Notice>}
      {error && (
        <Notice kind="error">
          {error} {needsCredits && <Link href="/billing">Go to Billing</Link>}
        </Notice>
      )}
      <div class="row">
        <button type="submit" class="primary" disabled={action.busy || waiting !== undefined || (noInput && files.length === 0)}>
          {action.busy ? 'Starting…' : 'Run'}
        </button>
        {skill.defaultInput !== null && (
          <button type="button" onClick={() => setInput(skill.defaultInput ?? '')}>
            Use the example input
          </button>
        )}
      </div>
    </form>
  );
}

/** One skill: what it does and what it costs, and a form that starts a run of it. */
/** In a team, credits are still each person's: whoever starts a run pays for it. */
function WhoPays() {
  const me = useMe();
  if (!me || me.workspace.personal) return null;
  return <span class="muted"> · from your own credits, not {workspaceLabel(me.workspace)}’s</span>;
}

export function SkillScreen({ slug }: { slug: string }) {
  const { data: skill, error } = useLoad(() => findSkill(slug), [slug]);
  if (error && skill === undefined) return <Notice kind="error">{error}</Notice>;
  if (skill === undefined) return <p aria-busy="true">Loading the skill…</p>;
  if (skill === null) {
    return (
      <Notice kind="error">
        There is no skill “{slug}”. <Link href="/skills">See the skills</Link>.
      </Notice>
    );
  }
  return (
    <>
      <section aria-labelledby="skill-name" class="skill-detail">
        <h2 id="skill-name">
          {skill.name} {skill.source === 'workspace' && <YoursBadge />}
        </h2>
        <p>{skill.description}</p>
        <dl class="skill-facts">
          <dt>Price</dt>
          <dd>
            {priceLabel(skill)}
            <WhoPays />
            {modelUseNote(skill) && <p class="hint">{modelUseNote(skill)}</p>}
          </dd>
          <dt>Runtime</dt>
          <dd>{skill.runtime}</dd>
          <dt>Slug</dt>
          <dd class="mono">{skill.slug}</dd>
        </dl>
      </section>
      <RunForm skill={skill} />
      {skill.source === 'workspace' && <RemoveSkill skill={skill} />}
    </>
  );
}

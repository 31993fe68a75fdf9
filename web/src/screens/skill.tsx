import { useState } from 'preact/hooks';
import type { SkillItem } from '../../../src/sdk/types';
import { messageOf } from '../api';
import { useLoad } from '../load';
import { createExecution } from '../requests/executions';
import { deleteFile, uploadFile } from '../requests/files';
import { findSkill } from '../requests/skills';
import { Link, navigate } from '../router';
import { Notice, useAction } from '../ui';
import { DropZone, FILES_ONLY_INPUT, RUN_FILES_MAX } from './run-files';
import { queueStart } from './run-start';
import { formatPrice } from './skills';
import './skills.css';

/**
 * Uploads the files one by one, saying which goes, then creates the execution with them.
 * When anything fails, the files already uploaded are deleted again rather than left to expire.
 */
async function createWithFiles(slug: string, input: string, files: File[], onProgress: (text: string) => void) {
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
    return await createExecution(slug, input, uploaded);
  } catch (thrown) {
    void Promise.all(uploaded.map((id) => deleteFile(id).catch(() => undefined)));
    throw thrown;
  }
}

function RunForm({ skill }: { skill: SkillItem }) {
  const [input, setInput] = useState('');
  const [files, setFiles] = useState<File[]>([]);
  const [progress, setProgress] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const action = useAction();
  const noInput = input.trim() === '';
  const submit = (event: Event) => {
    event.preventDefault();
    setError(undefined);
    if (files.length > RUN_FILES_MAX) {
      setError(`A run can be given at most ${RUN_FILES_MAX} files. Remove some and run again.`);
      return;
    }
    // Input stays required by the API: a person who gave only files means "these".
    const text = noInput && files.length > 0 ? FILES_ONLY_INPUT : input;
    setInput(text);
    void action.run(async () => {
      try {
        const created = await createWithFiles(skill.slug, text, files, setProgress);
        queueStart(created.id, text);
        navigate(`/runs/${encodeURIComponent(created.id)}`);
      } catch (thrown) {
        setError(messageOf(thrown));
      } finally {
        setProgress(undefined);
      }
    });
  };
  return (
    <form class="card" onSubmit={submit}>
      <label for="skill-input">Input</label>
      <textarea
        id="skill-input"
        required={files.length === 0}
        aria-describedby="skill-input-hint"
        value={input}
        onInput={(event) => setInput(event.currentTarget.value)}
      />
      <p id="skill-input-hint" class="hint">
        {skill.input} Up to 100 KB.
      </p>
      <DropZone files={files} onChange={setFiles} disabled={action.busy} />
      {progress && <Notice kind="info">{progress}</Notice>}
      {error && <Notice kind="error">{error}</Notice>}
      <div class="row">
        <button type="submit" class="primary" disabled={action.busy || (noInput && files.length === 0)}>
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
        <h2 id="skill-name">{skill.name}</h2>
        <p>{skill.description}</p>
        <dl class="skill-facts">
          <dt>Price</dt>
          <dd>{formatPrice(skill.price)}</dd>
          <dt>Runtime</dt>
          <dd>{skill.runtime}</dd>
          <dt>Slug</dt>
          <dd class="mono">{skill.slug}</dd>
        </dl>
      </section>
      <RunForm skill={skill} />
    </>
  );
}

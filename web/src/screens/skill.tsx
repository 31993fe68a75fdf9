import { useState } from 'preact/hooks';
import type { SkillItem } from '../../../src/sdk/types';
import { messageOf } from '../api';
import { useLoad } from '../load';
import { createExecution } from '../requests/executions';
import { findSkill } from '../requests/skills';
import { Link, navigate } from '../router';
import { Notice, useAction } from '../ui';
import { queueStart } from './run-start';
import { formatPrice } from './skills';
import './skills.css';

function RunForm({ skill }: { skill: SkillItem }) {
  const [input, setInput] = useState('');
  const [error, setError] = useState<string | undefined>();
  const action = useAction();
  const submit = (event: Event) => {
    event.preventDefault();
    setError(undefined);
    void action.run(async () => {
      try {
        const created = await createExecution(skill.slug, input);
        queueStart(created.id, input);
        navigate(`/runs/${encodeURIComponent(created.id)}`);
      } catch (thrown) {
        setError(messageOf(thrown));
      }
    });
  };
  return (
    <form class="card" onSubmit={submit}>
      <label for="skill-input">Input</label>
      <textarea
        id="skill-input"
        required
        aria-describedby="skill-input-hint"
        value={input}
        onInput={(event) => setInput(event.currentTarget.value)}
      />
      <p id="skill-input-hint" class="hint">
        {skill.input} Up to 100 KB.
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      <div class="row">
        <button type="submit" class="primary" disabled={action.busy || input.trim() === ''}>
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

import { useState } from 'preact/hooks';
import { priceLabel } from '../../../../src/sdk/skill-price';
import type { SkillItem } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { skillPage } from '../../requests/skills';
import { Link } from '../../router';
import { Notice } from '../../ui';
import { FirstRun } from '../run/first-run';
import './skills.css';

const PAGE = 50;

/** A skill installed into this workspace, told apart from the server's own. */
export function YoursBadge() {
  return (
    <span class="badge badge-yours" title="Installed into this workspace">
      Yours
    </span>
  );
}

function SkillCard({ skill }: { skill: SkillItem }) {
  return (
    <li class="card skill-card">
      <h2>
        {skill.name} {skill.source === 'workspace' && <YoursBadge />}
      </h2>
      <p>{skill.description}</p>
      <p class="row skill-meta">
        <span class="badge">{priceLabel(skill)}</span>
        <span class="muted mono">{skill.slug}</span>
        <Link href={`/skills/${encodeURIComponent(skill.slug)}`} class="skill-run" aria-label={`Run ${skill.name}`}>
          Run
        </Link>
      </p>
    </li>
  );
}

/** The marketplace: every skill this server offers, a page at a time. */
export function SkillsScreen() {
  const [offset, setOffset] = useState(0);
  const { data, error, loading } = useLoad(() => skillPage(offset, PAGE), [offset]);
  if (error && !data) return <Notice kind="error">{error}</Notice>;
  if (!data) return <p aria-busy="true">Loading skills…</p>;
  return (
    <>
      <p class="lede">Pick a skill, give it an input, and watch it run.</p>
      <FirstRun />
      {data.items.length === 0 ? (
        <Notice kind="info">This server offers no skills yet.</Notice>
      ) : (
        <ul class="skill-list" aria-busy={loading}>
          {data.items.map((skill) => (
            <SkillCard key={skill.slug} skill={skill} />
          ))}
        </ul>
      )}
      {(offset > 0 || data.hasMore) && (
        <nav class="row" aria-label="Skill pages">
          <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous skills
          </button>
          <span class="muted">
            {offset + 1}–{offset + data.items.length} of {data.total}
          </span>
          <button type="button" disabled={!data.hasMore} onClick={() => setOffset(offset + PAGE)}>
            More skills
          </button>
        </nav>
      )}
    </>
  );
}

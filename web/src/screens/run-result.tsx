import { useLoad } from '../load';
import { findArtifact } from '../requests/artifacts';
import { Link } from '../router';
import { formatSize } from './artifacts';
import { tokensText } from './run-events';
import type { RunEvent } from './run-stream';

/** A script skill calls no model: its zero tokens are left unsaid. */
const hasTokens = (usage: unknown) => tokensText(usage) !== tokensText({});

/** The run's closing summary: its execution.result (one per completed run). */
export function RunResult({ events }: { events: RunEvent[] }) {
  const results = events.filter((event) => event.type === 'execution.result');
  const last = results[results.length - 1];
  if (!last) return null;
  const { summary, cost, tokenUsage } = last.payload;
  return (
    <section aria-labelledby="run-result" class="run-section">
      <h2 id="run-result">Result</h2>
      <p class="run-summary">{String(summary ?? '')}</p>
      <dl class="run-facts">
        <dt>Cost</dt>
        <dd>{typeof cost === 'number' ? `${cost} Ds` : '—'}</dd>
        {hasTokens(tokenUsage) && (
          <>
            <dt>Tokens</dt>
            <dd>{tokensText(tokenUsage)}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

/** One artifact by its title, type and size, once loaded; its id until then. */
function ArtifactItem({ id }: { id: string }) {
  const found = useLoad(() => findArtifact(id), [id]);
  const artifact = found.data?.artifact;
  const files = found.data?.files;
  return (
    <li>
      <Link href={`/artifacts/${encodeURIComponent(id)}`}>{artifact ? artifact.title : `Artifact ${id.slice(0, 8)}`}</Link>
      {artifact && (
        <span class="muted">
          {' '}
          · {files ? `${files.length} file${files.length === 1 ? '' : 's'}` : artifact.fileType} ·{' '}
          {formatSize(artifact.contentSize)}
        </span>
      )}
    </li>
  );
}

/**
 * The artifacts the run made. REST does not list an execution's artifacts; the run's
 * execution.result names the one it wrote (`artifactId`, docs/decisions.md).
 */
export function RunArtifacts({ events }: { events: RunEvent[] }) {
  const ids = events
    .filter((event) => event.type === 'execution.result')
    .map((event) => event.payload.artifactId)
    .filter((id): id is string => typeof id === 'string');
  if (ids.length === 0) return null;
  return (
    <section aria-labelledby="run-artifacts" class="run-section">
      <h2 id="run-artifacts">What it made</h2>
      <ul>
        {ids.map((id) => (
          <ArtifactItem key={id} id={id} />
        ))}
      </ul>
    </section>
  );
}

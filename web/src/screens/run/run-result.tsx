import { useLoad } from '../../load';
import { artifactDownloadUrl, findArtifact } from '../../requests/artifacts';
import { Link } from '../../router';
import { Notice } from '../../ui';
import { MainFilePreview } from '../artifacts/artifact-files';
import { formatSize } from '../artifacts/artifacts';
import { lastOf, tokensText } from './run-events';
import type { RunEvent } from './run-stream';
import { formatDuration } from './run-times';

/** A script skill calls no model: its zero tokens are left unsaid. */
const hasTokens = (usage: unknown) => tokensText(usage) !== tokensText({});

/** From the start of the run that produced the result to the end of that run, when both times are known. */
function durationOf(events: RunEvent[], result: RunEvent, times: ReadonlyMap<number, number>): number | undefined {
  const start = lastOf(events, (event) => event.type === 'session.status_running' && event.sequence < result.sequence);
  const end = events.find((event) => event.type === 'session.status_idle' && event.sequence > result.sequence);
  const from = start && times.get(start.sequence);
  const to = end && times.get(end.sequence);
  return from !== undefined && to !== undefined ? to - from : undefined;
}

/** The run's closing summary: its execution.result (one per completed run), cost and duration. */
export function RunResult({ events, times }: { events: RunEvent[]; times: ReadonlyMap<number, number> }) {
  const last = lastOf(events, (event) => event.type === 'execution.result');
  if (!last) return null;
  const { summary, cost, tokenUsage } = last.payload;
  const duration = durationOf(events, last, times);
  return (
    <section aria-labelledby="run-result" class="run-section">
      <h2 id="run-result">Result</h2>
      <p class="run-summary">{String(summary ?? '')}</p>
      <dl class="run-facts">
        <dt>Cost</dt>
        <dd>{typeof cost === 'number' ? `${cost} Ds` : '—'}</dd>
        {duration !== undefined && (
          <>
            <dt>Took</dt>
            <dd>{formatDuration(duration)}</dd>
          </>
        )}
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

/** One artifact by its title, type and size, once loaded; its id until then. The first is shown itself. */
function ArtifactItem({ id, shown }: { id: string; shown: boolean }) {
  const found = useLoad(() => findArtifact(id), [id]);
  const artifact = found.data?.artifact;
  const files = found.data?.files;
  return (
    <li class="run-artifact">
      <Link href={`/artifacts/${encodeURIComponent(id)}`}>{artifact ? artifact.title : `Artifact ${id.slice(0, 8)}`}</Link>
      {artifact && (
        <span class="muted">
          {' '}
          · {files ? `${files.length} file${files.length === 1 ? '' : 's'}` : artifact.fileType} ·{' '}
          {formatSize(artifact.contentSize)}
        </span>
      )}
      {shown && !found.data && !found.error && <p aria-busy="true">Loading the preview…</p>}
      {shown && !found.data && found.error && <Notice kind="error">The preview could not be loaded: {found.error}</Notice>}
      {shown && found.data?.artifact.status === 'completed' && (
        <>
          <p class="run-preview-bar">
            <a class="button-link" href={artifactDownloadUrl(id)} download>
              Download{found.data.artifact.bundleType === 'directory' ? ' (ZIP)' : ''}
            </a>
          </p>
          <MainFilePreview found={found.data} />
        </>
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
      <ul class="run-artifacts">
        {ids.map((id, index) => (
          <ArtifactItem key={id} id={id} shown={index === ids.length - 1} />
        ))}
      </ul>
    </section>
  );
}

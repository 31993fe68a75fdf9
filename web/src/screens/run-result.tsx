import { Link } from '../router';
import { tokensText } from './run-events';
import type { RunEvent } from './run-stream';

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
        <dt>Tokens</dt>
        <dd>{tokensText(tokenUsage)}</dd>
      </dl>
    </section>
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
      <h2 id="run-artifacts">Artifacts</h2>
      <ul>
        {ids.map((id) => (
          <li key={id}>
            <Link href={`/artifacts/${encodeURIComponent(id)}`}>
              Artifact <span class="mono">{id.slice(0, 8)}</span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}

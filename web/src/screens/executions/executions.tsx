import { useState } from 'preact/hooks';
import type { HistoryItem } from '../../../../src/sdk/types';
import { useLoad } from '../../load';
import { listExecutions } from '../../requests/executions';
import { Link, navigate } from '../../router';
import { formatTime, Notice } from '../../ui';
import { RerunForm } from './executions-rerun';
import { type HistoryView, normaliseList, queryOf, viewOf } from './executions-view';
import './executions.css';

/** Keyed by the URL's filters by its caller, so the fields start again from them after a navigation. */
function Filters({ view }: { view: HistoryView }) {
  const [channels, setChannels] = useState(view.channels);
  const [interfaces, setInterfaces] = useState(view.interfaces);
  const apply = (event: Event) => {
    event.preventDefault();
    navigate(`/runs${queryOf({ ...view, offset: 0, channels: normaliseList(channels), interfaces: normaliseList(interfaces) })}`);
  };
  const filtered = view.channels !== '' || view.interfaces !== '';
  return (
    <form class="card history-filters" onSubmit={apply} aria-label="Filter runs">
      <div>
        <label for="filter-channels">Channels</label>
        <input
          id="filter-channels"
          value={channels}
          aria-describedby="filter-hint"
          onInput={(e) => setChannels(e.currentTarget.value)}
        />
      </div>
      <div>
        <label for="filter-interfaces">Interfaces</label>
        <input
          id="filter-interfaces"
          value={interfaces}
          aria-describedby="filter-hint"
          onInput={(e) => setInterfaces(e.currentTarget.value)}
        />
      </div>
      <p id="filter-hint" class="hint">
        Comma-separated. Channels are where a run came from (app, api); interfaces name the client (api, mcp, ci-bot).
      </p>
      <div class="row">
        <button type="submit" class="primary">
          Apply filters
        </button>
        {filtered && (
          <button type="button" onClick={() => navigate(`/runs${queryOf({ ...view, offset: 0, channels: '', interfaces: '' })}`)}>
            Clear filters
          </button>
        )}
      </div>
    </form>
  );
}

/** A cell's column name, shown (and read) only where the table stacks (phones) and its header row is hidden. */
function StackLabel({ children }: { children: string }) {
  return <span class="stack-label">{children} </span>;
}

/**
 * A run's state as a person says it. The API's `idle` means both "never started" and
 * "stopped part way"; the start time tells them apart.
 */
function statusOf(item: HistoryItem): { label: string; badge: string } {
  switch (item.status) {
    case 'working':
      return { label: 'Running', badge: 'working' };
    case 'completed':
      return { label: 'Completed', badge: 'completed' };
    case 'failed':
      return { label: 'Failed', badge: 'failed' };
    default:
      return item.startedAt ? { label: 'Stopped', badge: 'interrupted' } : { label: 'Not started', badge: 'new' };
  }
}

function HistoryRow({ item, onRerun }: { item: HistoryItem; onRerun: (item: HistoryItem) => void }) {
  return (
    <tr>
      <td>
        <Link href={`/runs/${encodeURIComponent(item.executionId)}`}>{item.skillName}</Link>
      </td>
      <td>
        <span class={`badge badge-${statusOf(item).badge}`}>{statusOf(item).label}</span>
      </td>
      <td>
        <StackLabel>Started</StackLabel>
        {formatTime(item.startedAt)}
      </td>
      <td>
        <StackLabel>From</StackLabel>
        {item.source} <span class="muted">· {item.interface}</span>
      </td>
      <td>
        <StackLabel>Cost</StackLabel>
        {item.cost} Ds
      </td>
      <td class="history-input">
        <StackLabel>Input</StackLabel>
        {item.inputText}
      </td>
      <td>
        {item.status === 'completed' && (
          <button
            type="button"
            onClick={() => onRerun(item)}
            aria-label={`Rerun ${item.skillName} (${item.inputText.slice(0, 40)})`}
          >
            Rerun
          </button>
        )}
      </td>
    </tr>
  );
}

/** Every run of the workspace, newest first, a page at a time, filtered by where it came from. */
export function ExecutionsScreen({ query }: { query: URLSearchParams }) {
  const view = viewOf(query);
  const key = queryOf(view);
  const { data, error, loading } = useLoad(() => listExecutions(view), [key]);
  const [rerun, setRerun] = useState<HistoryItem | undefined>();
  const go = (offset: number) => navigate(`/runs${queryOf({ ...view, offset: Math.max(0, offset) })}`);
  return (
    <>
      <Filters key={`${view.channels}|${view.interfaces}`} view={view} />
      {error && <Notice kind="error">{error}</Notice>}
      {!data && !error && <p aria-busy="true">Loading runs…</p>}
      {data && data.items.length === 0 && <Notice kind="info">No runs match.</Notice>}
      {data && data.items.length > 0 && (
        <table class="stack history" aria-busy={loading}>
          <caption class="muted">
            Runs {view.offset + 1}–{view.offset + data.items.length}
          </caption>
          <thead>
            <tr>
              <th scope="col">Skill</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              <th scope="col">Channel · interface</th>
              <th scope="col">Cost</th>
              <th scope="col">Input</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {data.items.map((item) => (
              <HistoryRow key={item.executionId} item={item} onRerun={setRerun} />
            ))}
          </tbody>
        </table>
      )}
      {rerun && <RerunForm key={rerun.executionId} item={rerun} onClose={() => setRerun(undefined)} />}
      <nav class="row history-pages" aria-label="Run pages">
        <button type="button" disabled={view.offset === 0} onClick={() => go(view.offset - view.limit)}>
          Newer runs
        </button>
        <button type="button" disabled={!data?.hasMore} onClick={() => go(view.offset + view.limit)}>
          Older runs
        </button>
      </nav>
    </>
  );
}

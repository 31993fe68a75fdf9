import { useEffect, useState } from 'preact/hooks';
import type { ExecutionStatus } from '../../../../src/sdk/types';
import { messageOf } from '../../api';
import { executionStatus } from '../../requests/executions';
import { Link } from '../../router';
import { formatTime, Notice } from '../../ui';
import { RunAgain } from './run-again';
import { MessageForm, RunningControls } from './run-controls';
import { ElapsedFact } from './run-elapsed';
import { EventList, lastOf, type Phase, phaseOf, stopReasonOf } from './run-events';
import { RunArtifacts, RunResult } from './run-result';
import { type RunEvent, type StreamState, useRunStream } from './run-stream';
import { useEventTimes } from './run-times';
import './run.css';

const PHASE_LABELS: Record<Phase, string> = {
  new: 'Not started',
  running: 'Running',
  interrupted: 'Interrupted',
  completed: 'Completed',
  failed: 'Failed',
};

const STREAM_LABELS: Record<StreamState, string> = {
  connecting: 'Connecting…',
  open: 'Live',
  ended: 'Ended',
  retrying: 'Reconnecting…',
  missing: 'Not found',
};

/**
 * The execution's status, read again whenever a run starts or ends. Not through useLoad:
 * the control plane signals progress on every event of a run, and the stream already
 * says everything in between.
 */
function useRunStatus(id: string, events: RunEvent[]): { data?: ExecutionStatus; error?: string } {
  const [loaded, setLoaded] = useState<{ id: string; data?: ExecutionStatus; error?: string }>({ id });
  const changes = events.filter((event) => event.type.startsWith('session.status_')).length;
  useEffect(() => {
    let current = true;
    executionStatus(id).then(
      (data) => current && setLoaded({ id, data }),
      (error: unknown) => current && setLoaded((held) => ({ ...held, id, error: messageOf(error) })),
    );
    return () => {
      current = false;
    };
  }, [id, changes]);
  return loaded.id === id ? loaded : {};
}

function phaseLabel(phase: Phase, cancelled: boolean, stopReason: string | undefined): string {
  if (phase === 'interrupted' && cancelled) return 'Cancelled';
  if (phase === 'failed' && stopReason === 'limit_reached') return 'Failed: credit limit reached';
  return PHASE_LABELS[phase];
}

/** One run, live: its events as they arrive, its controls, and what it produced. */
export function RunScreen({ id }: { id: string }) {
  const stream = useRunStream(id);
  const status = useRunStatus(id, stream.events);
  const times = useEventTimes(id, stream.events, stream.arrivedAt);
  const [cancelled, setCancelled] = useState(false);

  useEffect(() => setCancelled(false), [id]);

  if (stream.state === 'missing' || (status.error && !status.data)) {
    return (
      <Notice kind="error">
        {stream.state === 'missing' ? 'This run was not found.' : status.error} <Link href="/runs">See your runs</Link>.
      </Notice>
    );
  }
  const phase = phaseOf(status.data?.status, status.data?.startedAt, stream.events);
  const ending = lastOf(stream.events, (event) => event.type === 'session.status_idle');
  return (
    <>
      <section aria-labelledby="run-skill" class="run-head">
        <h2 id="run-skill">
          {status.data ? (
            <Link href={`/skills/${encodeURIComponent(status.data.skillSlug)}`}>{status.data.skillName}</Link>
          ) : (
            'Loading…'
          )}
        </h2>
        <dl class="run-facts">
          <dt>Status</dt>
          <dd>
            {phase ? (
              <span class={`badge badge-${phase}`}>{phaseLabel(phase, cancelled, ending && stopReasonOf(ending))}</span>
            ) : (
              '…'
            )}
          </dd>
          <dt>Started</dt>
          <dd>{formatTime(status.data?.startedAt)}</dd>
          <ElapsedFact events={stream.events} times={times} />
          <dt>Stream</dt>
          <dd>{STREAM_LABELS[stream.state]}</dd>
          <dt>Run id</dt>
          <dd class="mono">{id}</dd>
        </dl>
        {phase === 'running' && <RunningControls id={id} onCancelled={() => setCancelled(true)} />}
        {cancelled && phase !== 'running' && <Notice kind="success">The run was cancelled.</Notice>}
        {stream.error && <Notice kind="info">{stream.error}</Notice>}
      </section>
      <RunResult events={stream.events} times={times} />
      <RunArtifacts events={stream.events} />
      {(phase === 'new' || phase === 'interrupted') && (
        <MessageForm
          id={id}
          skillSlug={status.data?.skillSlug}
          phase={phase}
          ensureOpen={stream.ensureOpen}
          onSent={() => setCancelled(false)}
        />
      )}
      <section aria-labelledby="run-events-heading" class="run-section">
        <h2 id="run-events-heading">Events</h2>
        <EventList events={stream.events} times={times} />
      </section>
      {status.data && phase !== 'running' && phase !== 'new' && <RunAgain slug={status.data.skillSlug} events={stream.events} />}
    </>
  );
}

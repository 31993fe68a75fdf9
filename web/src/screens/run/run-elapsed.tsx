import { useEffect, useState } from 'preact/hooks';
import { lastOf } from './run-events';
import type { RunEvent } from './run-stream';
import { formatDuration } from './run-times';

/** Whole seconds while the count goes on, so the figure does not flicker through tenths. */
function counting(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  return seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** The current moment, read again every second while `ticking`. */
function useNow(ticking: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!ticking) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [ticking]);
  return now;
}

/**
 * How long the latest run has gone on, counting up each second while it works, and how long
 * it took once it has ended. A run is timed from its session.status_running to the
 * session.status_idle after it, by the times the events were stored (or arrived).
 */
export function useElapsed(events: RunEvent[], times: ReadonlyMap<number, number>): { label: string; ms: number } | undefined {
  const start = lastOf(events, (event) => event.type === 'session.status_running');
  const end = start && events.find((event) => event.type === 'session.status_idle' && event.sequence > start.sequence);
  const now = useNow(start !== undefined && end === undefined);
  const from = start && times.get(start.sequence);
  if (from === undefined) return undefined;
  if (end === undefined) return { label: 'Elapsed', ms: Math.max(0, now - from) };
  const to = times.get(end.sequence);
  return to === undefined ? undefined : { label: 'Took', ms: Math.max(0, to - from) };
}

/** The run's time as a fact of the run head: "Elapsed 12 s" while it works, "Took 1 min 3 s" once ended. */
export function ElapsedFact({ events, times }: { events: RunEvent[]; times: ReadonlyMap<number, number> }) {
  const elapsed = useElapsed(events, times);
  if (!elapsed) return null;
  return (
    <>
      <dt>{elapsed.label}</dt>
      <dd>
        <span class="run-elapsed">{elapsed.label === 'Elapsed' ? counting(elapsed.ms) : formatDuration(elapsed.ms)}</span>
      </dd>
    </>
  );
}

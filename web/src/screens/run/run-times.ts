import { useEffect, useMemo, useState } from 'preact/hooks';
import { eventTimes } from '../../requests/executions';
import type { RunEvent } from './run-stream';

/** Pages of times read at most: 20,000 events, more than any run the page shows whole. */
const MAX_PAGES = 20;

/**
 * When each event of a run happened, in milliseconds since the epoch. The stream's frames
 * carry no time, so the times stored with the events are read once the first events are in
 * (a replay arrives in one burst) and when the run ends; an event that arrives in between is
 * live, and its arrival (`arrivedAt`, by index) is its time until then.
 */
export function useEventTimes(id: string, events: RunEvent[], arrivedAt: number[]): ReadonlyMap<number, number> {
  const [stored, setStored] = useState<{ id: string; times: Map<number, number> }>();
  // Read once the stream has brought something (a run that never started has no times), and
  // again when the run has ended, so that what stays on screen is the stored times throughout.
  const started = events.length > 0;
  const ended = events[events.length - 1]?.type === 'session.status_idle';
  useEffect(() => {
    if (!started) return;
    let current = true;
    (async () => {
      const times = new Map<number, number>();
      let after = 0;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = await eventTimes(id, after);
        for (const time of answer.times) times.set(time.sequence, Date.parse(time.at));
        if (!answer.hasMore || answer.times.length === 0) break;
        after = answer.times[answer.times.length - 1]?.sequence ?? after;
      }
      if (current) setStored({ id, times });
    })().catch(() => {
      // Times are a courtesy: without them each event keeps the moment it arrived.
    });
    return () => {
      current = false;
    };
  }, [id, started, ended]);

  const known = stored?.id === id ? stored.times : undefined;
  return useMemo(() => {
    const times = new Map<number, number>();
    events.forEach((event, index) => {
      const at = known?.get(event.sequence) ?? arrivedAt[index];
      if (at !== undefined) times.set(event.sequence, at);
    });
    return times;
  }, [events, arrivedAt, known]);
}

/** A moment as the time of day, to the second. */
export function timeOfDay(at: number): string {
  return new Date(at).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** How long something took, in words a person reads at a glance. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ActiveRun } from '../../src/ports/runs.js';
import { ActiveRuns } from '../../src/runs/active-runs.js';

function fakeRun(): ActiveRun & { stops: number } {
  const run = {
    stops: 0,
    stop() {
      run.stops += 1;
    },
    settled: Promise.resolve(),
  };
  return run;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('a stop from another node', () => {
  it('stops a run in progress here at once', () => {
    const runs = new ActiveRuns();
    const run = fakeRun();
    runs.add('e1', run);
    runs.stopWhenAdded('e1');
    expect(run.stops).toBe(1);
  });

  it('waits for a run still being started here, and stops it the moment it is added', () => {
    const runs = new ActiveRuns();
    runs.stopWhenAdded('e1');
    const run = fakeRun();
    runs.add('e1', run);
    expect(run.stops).toBe(1);
    // Used once: the execution's next run is not stopped by it.
    const next = fakeRun();
    runs.delete('e1', run);
    runs.add('e1', next);
    expect(next.stops).toBe(0);
  });

  it('is forgotten after the asking node has given up waiting, so a later run is left alone', () => {
    vi.useFakeTimers();
    const runs = new ActiveRuns();
    runs.stopWhenAdded('e1');
    vi.advanceTimersByTime(10_001);
    const run = fakeRun();
    runs.add('e1', run);
    expect(run.stops).toBe(0);
  });
});

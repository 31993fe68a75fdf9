import type { RunLife, RunLifeEvents } from '../ports/run-life.js';
import type { RuntimeName } from '../ports/skills.js';
import type { AppMetrics } from './metrics.js';

/**
 * Counts each run this node executes as it ends, by how it ended and its skill's runtime,
 * with its wall time from the moment its runtime started it. A run ended elsewhere (its node
 * was lost) or handed to another worker is that node's to count.
 */
export function meterRuns(life: RunLife, metrics: AppMetrics): void {
  const executing = new Map<string, { runtime: RuntimeName; started: number }>();
  life.on('run.executing', ({ executionId, runtime }) => {
    executing.set(executionId, { runtime, started: performance.now() });
  });
  life.on('run.handedOver', ({ executionId }) => {
    executing.delete(executionId);
  });
  const ended =
    (status: 'completed' | 'failed' | 'stopped') =>
    ({ executionId }: RunLifeEvents['run.completed' | 'run.failed' | 'run.stopped']) => {
      const run = executing.get(executionId);
      if (!run) return;
      executing.delete(executionId);
      const labels = { status, runtime: run.runtime };
      metrics.runs.inc(labels);
      metrics.runSeconds.observe(labels, (performance.now() - run.started) / 1000);
    };
  life.on('run.completed', ended('completed'));
  life.on('run.failed', ended('failed'));
  // A stopped run (an interrupt, a cancel, a shutdown) leaves its execution idle, to be resumed.
  life.on('run.stopped', ended('stopped'));
}

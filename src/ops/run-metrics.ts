import type { AppContext } from '../context.js';
import type { ActiveRun, RunRegistry } from '../ports/runs.js';
import { findExecution } from '../runs/executions.store.js';
import { findSkill } from '../skills/workspace-skills.js';
import type { AppMetrics } from './metrics.js';

/** The status a finished run left its execution in, as the metric names it. */
function endingOf(status: string | undefined): string {
  // A stopped run (interrupt, cancel, shutdown) leaves its execution idle, to be resumed.
  if (status === 'idle') return 'stopped';
  return status ?? 'unknown';
}

/**
 * Counts each run of this node as it ends: every run it executes (started here, taken from
 * the queue, or a thread's) is added to its run registry, and each ends once.
 */
export function meterRuns(
  runs: RunRegistry,
  metrics: AppMetrics,
  ctx: Pick<AppContext, 'db' | 'skills' | 'blobs' | 'config' | 'log'>,
): void {
  runs.onAdded((executionId: string, run: ActiveRun) => {
    const started = performance.now();
    void run.settled
      .then(async () => {
        const execution = await findExecution(ctx.db, executionId);
        const skill = execution && (await findSkill(ctx, execution.workspace_id, execution.skill_slug));
        const runtime = skill?.runtime ?? 'unknown';
        const labels = { status: endingOf(execution?.status), runtime };
        metrics.runs.inc(labels);
        metrics.runSeconds.observe(labels, (performance.now() - started) / 1000);
      })
      .catch((error: unknown) => ctx.log.warn({ err: error, executionId }, 'a run could not be counted'));
  });
}

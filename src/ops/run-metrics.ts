import type { AppContext } from '../context.js';
import { type ActiveRun, ActiveRuns } from '../runs/active-runs.js';
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
 * The process's active runs, counted as each one ends: every run this node executes passes
 * through here (started here, taken from the queue, or a thread's), and each ends once.
 */
export class MeteredRuns extends ActiveRuns {
  constructor(
    private readonly metrics: AppMetrics,
    private readonly ctx: Pick<AppContext, 'db' | 'skills' | 'blobs' | 'config' | 'log'>,
  ) {
    super();
  }

  override add(executionId: string, run: ActiveRun): void {
    super.add(executionId, run);
    const started = performance.now();
    void run.settled
      .then(async () => {
        const execution = await findExecution(this.ctx.db, executionId);
        const skill = execution && (await findSkill(this.ctx, execution.workspace_id, execution.skill_slug));
        const runtime = skill?.runtime ?? 'unknown';
        const labels = { status: endingOf(execution?.status), runtime };
        this.metrics.runs.inc(labels);
        this.metrics.runSeconds.observe(labels, (performance.now() - started) / 1000);
      })
      .catch((error: unknown) => this.ctx.log.warn({ err: error, executionId }, 'a run could not be counted'));
  }
}

import type { ArtifactView } from '../artifacts/artifact-view.js';
import { executionArtifacts } from '../artifacts/artifacts.js';
import type { AppContext } from '../context.js';
import type { ExecutionStatus, StopReason } from '../db/tables-runs.js';
import type { Caller } from '../ports/callers.js';
import { executionOf, executionStatus } from './executions.js';

/** The run's page in the app, at the server's public address: where a person watches, shares or finds it. */
export const runPageUrl = (publicUrl: string, executionId: string) => `${publicUrl}/app/runs/${encodeURIComponent(executionId)}`;

/** Where a run stands, as POST /runs, MCP's run_skill and get_execution report it. */
export interface ExecutionReport {
  executionId: string;
  skillSlug: string;
  status: ExecutionStatus;
  stopReason: StopReason | null;
  cost: number;
  startedAt: string | null;
  completedAt: string | null;
  /** The text of its agent.message events, joined by newlines. */
  output: string;
  /** What it delivered: an artifact taken back (its run failed, or was not paid for) has no files to read. */
  artifacts: ArtifactView[];
}

/** An execution of the caller's workspace, with what it said and what it wrote. */
export async function executionReport(ctx: AppContext, caller: Caller, executionId: string): Promise<ExecutionReport> {
  const row = await executionOf(ctx, caller, executionId);
  const [status, artifacts] = await Promise.all([
    executionStatus(ctx, caller, executionId),
    executionArtifacts(ctx, caller, executionId),
  ]);
  return {
    executionId,
    skillSlug: row.skill_slug,
    status: row.status,
    stopReason: row.stop_reason,
    cost: row.cost,
    startedAt: row.started_at,
    completedAt: row.completed_at,
    output: status.outputBlocks.map((block) => block.text).join('\n'),
    artifacts: artifacts.filter((artifact) => artifact.status === 'completed'),
  };
}

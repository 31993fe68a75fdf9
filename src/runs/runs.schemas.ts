import { Type } from 'typebox';
import { ArtifactSchema } from '../artifacts/artifacts.schemas.js';
import { NullableTimestamp } from '../http/schemas.js';

const Status = Type.Union([Type.Literal('idle'), Type.Literal('working'), Type.Literal('completed'), Type.Literal('failed')]);
/** Why a run stopped; null while it goes (MCP's run_skill answers the same). */
export const StopReason = Type.Union([
  Type.Literal('end_turn'),
  Type.Literal('interrupt'),
  Type.Literal('limit_reached'),
  Type.Literal('error'),
  Type.Null(),
]);

/** Our addition (POST /runs): an execution created and started in one call, and where it stands. */
export const RunAnswer = Type.Object({
  executionId: Type.String(),
  skillSlug: Type.String(),
  skillName: Type.String(),
  status: Status,
  stopReason: StopReason,
  cost: Type.Number(),
  inputText: Type.String(),
  startedAt: NullableTimestamp,
  completedAt: NullableTimestamp,
  /** The text of its agent.message events so far, joined by newlines. */
  output: Type.String(),
  artifacts: Type.Array(ArtifactSchema),
  /** Its event stream (signed, short-lived): open it with lastSeq to follow on without repeats. */
  sseUrl: Type.String(),
  statusUrl: Type.String(),
  /** The run's page in the app. */
  webUrl: Type.String(),
});

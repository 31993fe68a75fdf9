import { Type } from 'typebox';
import { ArtifactSchema } from './artifacts.js';
import { NullableTimestamp, Timestamp } from './common.js';

/** Where an execution stands; a new one is idle until its first user message. */
export const ExecutionStateSchema = Type.Union([
  Type.Literal('idle'),
  Type.Literal('working'),
  Type.Literal('completed'),
  Type.Literal('failed'),
]);

/** What a run may be given: an uploaded file, or every file of an artifact. */
export const RunFileRefSchema = Type.Union([
  Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
  Type.Object({ artifactId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
]);

export const CreatedExecution = Type.Object({
  id: Type.String(),
  skill_slug: Type.String(),
  skill_name: Type.String(),
  status: ExecutionStateSchema,
});

export const ExecutionEventSchema = Type.Object({
  id: Type.String(),
  type: Type.String(),
  sequence: Type.Integer(),
  payload: Type.Record(Type.String(), Type.Unknown()),
});
export const PostedEvents = Type.Object({ data: Type.Array(ExecutionEventSchema) });

export const StatusResponse = Type.Object({
  executionId: Type.String(),
  status: ExecutionStateSchema,
  skillSlug: Type.String(),
  skillName: Type.String(),
  startedAt: NullableTimestamp,
  outputBlocks: Type.Array(Type.Object({ type: Type.String(), text: Type.String() })),
});

/** One row of the execution history. */
export const HistoryItemSchema = Type.Object({
  id: Type.Integer(),
  executionId: Type.String(),
  skillSlug: Type.String(),
  skillName: Type.String(),
  status: ExecutionStateSchema,
  cost: Type.Number(),
  source: Type.String(),
  interface: Type.String(),
  inputText: Type.String(),
  startedAt: NullableTimestamp,
  completedAt: NullableTimestamp,
});

export const HistoryResponse = Type.Object({
  items: Type.Array(HistoryItemSchema),
  hasMore: Type.Boolean(),
  offset: Type.Integer(),
  limit: Type.Integer(),
});

export const RerunResponse = Type.Object({
  executionId: Type.String(),
  parentExecutionId: Type.String(),
  skillName: Type.String(),
  status: Type.Literal('started'),
  message: Type.String(),
});

export const CancelResponse = Type.Object({
  success: Type.Boolean(),
  message: Type.String(),
  processKilled: Type.Boolean(),
  actualStatus: ExecutionStateSchema,
});

export const StreamTokenResponse = Type.Object({ sseUrl: Type.String() });

/** When each event of a run was recorded, by sequence; a page of them. */
export const EventTimesResponse = Type.Object({
  times: Type.Array(Type.Object({ sequence: Type.Integer(), at: Timestamp })),
  hasMore: Type.Boolean(),
});

/** Why a run stopped; null while it goes (MCP's run_skill answers the same). */
export const StopReason = Type.Union([
  Type.Literal('end_turn'),
  Type.Literal('interrupt'),
  Type.Literal('limit_reached'),
  Type.Literal('error'),
  Type.Null(),
]);

/**
 * A run created and started in one call, and where it stands: over (when the call waited long
 * enough) or still working, with where to follow it.
 */
export const RunAnswer = Type.Object({
  executionId: Type.String(),
  skillSlug: Type.String(),
  skillName: Type.String(),
  status: ExecutionStateSchema,
  stopReason: StopReason,
  cost: Type.Number(),
  inputText: Type.String(),
  startedAt: NullableTimestamp,
  completedAt: NullableTimestamp,
  /** The text of its agent messages so far, joined by newlines. */
  output: Type.String(),
  artifacts: Type.Array(ArtifactSchema),
  /** Its event stream, signed and short-lived; add `&lastSeq=<n>` to skip what you have. */
  sseUrl: Type.String(),
  statusUrl: Type.String(),
  /** The run's page in the web app. */
  webUrl: Type.String(),
});

/** The control plane's signed WebSocket address. */
export const SubscribeUrl = Type.Object({ url: Type.String(), expiresInMs: Type.Integer() });

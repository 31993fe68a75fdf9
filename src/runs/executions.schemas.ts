import { Type } from 'typebox';
import { NullableTimestamp, PageQuery, Timestamp } from '../http/schemas.js';

const STATES = 'idle|working|completed|failed';
const Status = Type.Union([Type.Literal('idle'), Type.Literal('working'), Type.Literal('completed'), Type.Literal('failed')]);

export const ExecutionParams = Type.Object({ executionId: Type.String({ minLength: 1, maxLength: 100 }) });

export const CreateExecutionBody = Type.Object({
  skill_slug: Type.String({ minLength: 1, maxLength: 100 }),
  input: Type.String({ minLength: 1 }),
  source: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  interface: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  // At most 100 files reach a run (an artifact counts each of its files); the domain says so in words.
  files: Type.Optional(
    Type.Array(
      Type.Union([
        Type.Object({ fileId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
        Type.Object({ artifactId: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false }),
      ]),
      { maxItems: 1000 },
    ),
  ),
});

export const CreatedExecution = Type.Object({
  id: Type.String(),
  skill_slug: Type.String(),
  skill_name: Type.String(),
  status: Status,
});

const TextBlock = Type.Object({ type: Type.Literal('text'), text: Type.String() });
const UserMessage = Type.Object({ type: Type.Literal('user.message'), content: Type.Array(TextBlock, { minItems: 1 }) });
const UserInterrupt = Type.Object({ type: Type.Literal('user.interrupt') });
export const PostEventsBody = Type.Object({
  events: Type.Array(Type.Union([UserMessage, UserInterrupt]), { minItems: 1, maxItems: 10 }),
});

const EventSchema = Type.Object({
  id: Type.String(),
  type: Type.String(),
  sequence: Type.Integer(),
  payload: Type.Record(Type.String(), Type.Unknown()),
});
export const PostedEvents = Type.Object({ data: Type.Array(EventSchema) });

export const StatusResponse = Type.Object({
  executionId: Type.String(),
  status: Status,
  skillSlug: Type.String(),
  skillName: Type.String(),
  startedAt: NullableTimestamp,
  outputBlocks: Type.Array(Type.Object({ type: Type.String(), text: Type.String() })),
});

export const HistoryQuery = Type.Object({
  ...PageQuery,
  channels: Type.Optional(Type.String({ maxLength: 500 })),
  interfaces: Type.Optional(Type.String({ maxLength: 500 })),
  /** Our addition: only executions in these states, comma-separated (a client asks "is a run going?"). */
  statuses: Type.Optional(Type.String({ maxLength: 100, pattern: `^(${STATES})(,(${STATES}))*$` })),
});

export const HistoryResponse = Type.Object({
  items: Type.Array(
    Type.Object({
      id: Type.Integer(),
      executionId: Type.String(),
      skillSlug: Type.String(),
      skillName: Type.String(),
      status: Status,
      cost: Type.Number(),
      source: Type.String(),
      interface: Type.String(),
      inputText: Type.String(),
      startedAt: NullableTimestamp,
      completedAt: NullableTimestamp,
    }),
  ),
  hasMore: Type.Boolean(),
  offset: Type.Integer(),
  limit: Type.Integer(),
});

export const RerunBody = Type.Object({ input: Type.String({ minLength: 1 }) });
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
  actualStatus: Status,
});

export const StreamTokenResponse = Type.Object({ sseUrl: Type.String() });

/** Our addition: the times of a run's events, after a sequence (paged by it). */
export const EventTimesQuery = Type.Object({ after: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })) });
export const EventTimesResponse = Type.Object({
  times: Type.Array(Type.Object({ sequence: Type.Integer(), at: Timestamp })),
  hasMore: Type.Boolean(),
});

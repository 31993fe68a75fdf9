import { Type } from 'typebox';
import { PageQuery } from '../http/schemas.js';
import { RunFileRefSchema } from '../sdk/schemas/executions.js';

const STATES = 'idle|working|completed|failed';

export const ExecutionParams = Type.Object({ executionId: Type.String({ minLength: 1, maxLength: 100 }) });

export const CreateExecutionBody = Type.Object({
  skill_slug: Type.String({ minLength: 1, maxLength: 100 }),
  input: Type.String({ minLength: 1 }),
  source: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
  interface: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  // At most 100 files reach a run (an artifact counts each of its files); the domain says so in words.
  files: Type.Optional(Type.Array(RunFileRefSchema, { maxItems: 1000 })),
});

const TextBlock = Type.Object({ type: Type.Literal('text'), text: Type.String() });
const UserMessage = Type.Object({ type: Type.Literal('user.message'), content: Type.Array(TextBlock, { minItems: 1 }) });
const UserInterrupt = Type.Object({ type: Type.Literal('user.interrupt') });
export const PostEventsBody = Type.Object({
  events: Type.Array(Type.Union([UserMessage, UserInterrupt]), { minItems: 1, maxItems: 10 }),
});

export const HistoryQuery = Type.Object({
  ...PageQuery,
  channels: Type.Optional(Type.String({ maxLength: 500 })),
  interfaces: Type.Optional(Type.String({ maxLength: 500 })),
  /** Our addition: only executions in these states, comma-separated (a client asks "is a run going?"). */
  statuses: Type.Optional(Type.String({ maxLength: 100, pattern: `^(${STATES})(,(${STATES}))*$` })),
});

export const RerunBody = Type.Object({ input: Type.String({ minLength: 1 }) });
/** Our addition: the times of a run's events, after a sequence (paged by it). */
export const EventTimesQuery = Type.Object({ after: Type.Optional(Type.String({ pattern: '^[0-9]{1,9}$' })) });

import { Type } from 'typebox';
import { PageQuery } from '../http/schemas.js';
import { NullableTimestamp, PageFields, Timestamp } from '../sdk/schemas/common.js';

const Id = Type.String({ minLength: 1, maxLength: 100 });
const ThreadId = Type.String({ minLength: 1, maxLength: 200 });
/** SPEC, Limits: input payloads up to 100 KB, as for executions. */
const Message = Type.String({ minLength: 1, maxLength: 100_000 });

export const AgentParams = Type.Object({ agentId: Id });
export const ApprovalParams = Type.Object({ agentId: Id, threadId: ThreadId, approvalId: Id });

export const ThreadListQuery = Type.Object(PageQuery);
export const ThreadList = Type.Object({
  items: Type.Array(
    Type.Object({
      threadId: Type.String(),
      agentId: Type.String(),
      title: Type.String(),
      createdAt: Timestamp,
      updatedAt: Timestamp,
    }),
  ),
  ...PageFields,
});

export const ThreadBody = Type.Object({ resourceId: Id, threadId: ThreadId });
export const SendMessageBody = Type.Object({ resourceId: Id, threadId: ThreadId, message: Message });
export const ChatBody = Type.Object({ threadId: Type.Optional(ThreadId), message: Message });
export const ApprovalBody = Type.Object({ approved: Type.Boolean() });

/** Where a subscription resumes: the `id:` of the last record the client got. */
export const ResumeHeaders = Type.Object({ 'last-event-id': Type.Optional(Type.String({ pattern: '^[0-9]{0,12}$' })) });

export const SentMessage = Type.Object({ messageId: Type.String(), threadId: Type.String() });

export const AgentsResponse = Type.Object({
  agents: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), description: Type.String() })),
});

export const ApprovalResponse = Type.Object({
  approvalId: Type.String(),
  threadId: Type.String(),
  tool: Type.String(),
  input: Type.Record(Type.String(), Type.Unknown()),
  status: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('denied')]),
  createdAt: Timestamp,
  decidedAt: NullableTimestamp,
});

/** A server-sent-event stream of thread records (threads/thread-frames.ts), for the OpenAPI document. */
export const ThreadEventStream = {
  description:
    'Server-sent events: one frame per thread record (`id:` its sequence, `data:` the record as JSON), and `: heartbeat` comments every 25 s.',
  content: { 'text/event-stream': { schema: Type.String() } },
};

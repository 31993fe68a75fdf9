/** What a thread with an agent is made of, as its stream and its routes give it (DESIGN §13). */

export interface ThreadAgent {
  id: string;
  name: string;
  description: string;
}

export interface ThreadSummary {
  threadId: string;
  agentId: string;
  /** The start of the thread's first message. */
  title: string;
  createdAt: string;
  updatedAt: string;
}

/** Where a record sits in its thread: `sequence` is the stream's `id:`, for resuming. */
interface Placed {
  sequence: number;
  id: string;
  createdAt: string;
}

export type ThreadRecord = Placed &
  (
    | { type: 'user.message'; messageId: string; text: string }
    | { type: 'agent.chunk'; messageId: string; text: string }
    | { type: 'agent.message'; messageId: string; text: string }
    | { type: 'tool.approval_request'; approvalId: string; tool: string; label: string; input: Record<string, unknown> }
    | { type: 'tool.result'; callId: string; tool: string; status: 'ok' | 'denied' | 'error'; summary: string }
    | { type: 'notification'; text: string; executionId?: string }
    | {
        type: 'agent.turn_end';
        messageId: string;
        stopReason: 'end_turn' | 'error' | 'limit_reached';
        reason?: string;
        /** The last record the turn's agent had seen. */
        through?: number;
      }
  );

/** The first frame of a chat reply (it is no record): the thread the message went to. */
export interface ChatOpening {
  type: 'thread';
  threadId: string;
  agentId: string;
}

export interface ApprovalDecision {
  approvalId: string;
  threadId: string;
  tool: string;
  input: Record<string, unknown>;
  status: 'pending' | 'approved' | 'denied';
  createdAt: string;
  decidedAt: string | null;
}

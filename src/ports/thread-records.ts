/**
 * What an agent thread is made of (DESIGN §13): records, stored in order under a sequence
 * number per thread and sent to subscribers as SSE frames (`id:` is the sequence, so
 * `Last-Event-ID` resumes). This file is the contract between the thread plumbing
 * (storage, streams, routes) and the thread agent (the model loop).
 */

/** A thread as the agent loop sees it: who it belongs to and who pays for its model calls. */
export interface ThreadRef {
  /** The thread's own row id (a UUID), distinct from the client's `threadId`. */
  id: string;
  workspaceId: string;
  agentId: string;
  /** The client's name for the thread, unique per workspace and agent. */
  threadId: string;
  /** Whose message started the turn being run: the payer of its model calls. */
  userId: string;
}

export type ThreadRecord =
  /** A person's message (POST chat or send-message). */
  | { type: 'user.message'; messageId: string; text: string }
  /** A piece of the agent's reply as the model streams it; `messageId` names the reply. */
  | { type: 'agent.chunk'; messageId: string; text: string }
  /** The agent's whole reply text for one model answer, after its chunks. */
  | { type: 'agent.message'; messageId: string; text: string }
  /** The agent wants to call a tool that needs the person's yes (it costs, or acts). */
  | { type: 'tool.approval_request'; approvalId: string; tool: string; label: string; input: Record<string, unknown> }
  /** What became of a tool call: run (with a short result), denied, or failed. */
  | { type: 'tool.result'; callId: string; tool: string; status: 'ok' | 'denied' | 'error'; summary: string }
  /** A background event, such as a run the thread started ending; `text` is made by notificationText (wrapped, its body encoded). */
  | { type: 'notification'; text: string; executionId?: string }
  /** The agent's turn ended; `stopReason` as for runs (end_turn, error, limit_reached). */
  | { type: 'agent.turn_end'; messageId: string; stopReason: 'end_turn' | 'error' | 'limit_reached'; reason?: string };

export type ThreadRecordType = ThreadRecord['type'];

/** A stored record: its place in the thread and when it was written. */
export interface StoredThreadRecord {
  sequence: number;
  id: string;
  createdAt: string;
  record: ThreadRecord;
}

/** How the agent loop writes into its thread and asks the person for a yes. */
export interface ThreadSink {
  /** Stores the records under the thread's next sequences, then announces them to subscribers on every node. */
  append(records: ThreadRecord[]): Promise<StoredThreadRecord[]>;
  /**
   * Stores a tool.approval_request and waits for the answer (POST .../approvals/:approvalId,
   * on any node). False on denial; rejects with the signal's reason if it aborts first.
   */
  requestApproval(
    request: { tool: string; label: string; input: Record<string, unknown> },
    signal: AbortSignal,
  ): Promise<boolean>;
}

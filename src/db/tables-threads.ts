/* Row types of agent threads, their records, approvals, runs and turn claims (the `Tables` of tables.ts lists them all). */
/** A person's thread turn asked for or running, counted against THREAD_TURNS_PER_USER (threads/turn-claims.store.ts). */
export interface ThreadTurnClaimsTable {
  thread_id: string;
  user_id: string;
  claimed_at: string;
}

/** An agent thread: one per workspace, agent and the client's thread id. */
export interface AgentThreadsTable {
  id: string;
  workspace_id: string;
  agent_id: string;
  thread_id: string;
  /** The sequence of its last record; bumped in the transaction that stores the next ones. */
  last_sequence: number;
  created_at: string;
}

/** A thread's record as subscribers get it: its SSE frame, rendered once when stored. */
export interface ThreadRecordsTable {
  thread_row_id: string;
  sequence: number;
  id: string;
  type: string;
  frame: string;
  created_at: string;
}

export type ThreadApprovalStatus = 'pending' | 'approved' | 'denied';

/** A tool call a thread's agent asked a person to allow. `input` is JSON. */
export interface ThreadApprovalsTable {
  id: string;
  thread_row_id: string;
  tool: string;
  input: string;
  status: ThreadApprovalStatus;
  created_at: string;
  decided_at: string | null;
  decided_by: string | null;
  /** The person whose turn asked (the turn's payer); null on approvals stored before it was kept. */
  requested_by: string | null;
}

/** A run a thread's agent started: its end is told to the thread. */
export interface ThreadRunsTable {
  execution_id: string;
  thread_row_id: string;
  /** Who asked for the run in the thread: the payer of the agent turn its end wakes. */
  user_id: string;
  created_at: string;
}

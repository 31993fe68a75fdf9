import type { Generated } from 'kysely';

/* Row types of executions, their events, journals and checkpoints, input files, and the cluster's nodes and leases (the `Tables` of tables.ts lists them all). */

export type ExecutionStatus = 'idle' | 'working' | 'completed' | 'failed';

export type StopReason = 'end_turn' | 'interrupt' | 'limit_reached' | 'error';

export interface ExecutionsTable {
  /** The history number; `execution_id` is the public id. */
  id: Generated<number>;
  execution_id: string;
  workspace_id: string;
  user_id: string;
  skill_slug: string;
  skill_name: string;
  status: ExecutionStatus;
  source: string;
  interface: string;
  input_text: string;
  cost: number;
  parent_execution_id: string | null;
  /** The last event's sequence; the next event takes the one after. */
  last_sequence: number;
  stop_reason: StopReason | null;
  idempotency_key: string | null;
  idempotency_fingerprint: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** The node running it, or that last ran it (config.nodeId). */
  owner_node: string | null;
  /** Which of its owner's attempts at the queued run holds it (executions.store `RunOwner`); null outside the queue. */
  owner_attempt: string | null;
}

export interface ExecutionEventsTable {
  execution_id: string;
  sequence: number;
  id: string;
  type: string;
  /** The event as a server-sent-event frame, rendered once when stored; the only copy of its payload. */
  frame: string;
  created_at: string;
}

/** The frames of BLOCK_EVENTS consecutive events, joined (see event-blocks.store.ts). */
export interface ExecutionEventBlocksTable {
  execution_id: string;
  block: number;
  frames: string;
}

/** What a journal row records: a model call's answer, a tool call's result, a tool call with outside effects as it starts, or a hand-over to another worker. */
export type JournalKind = 'model_reply' | 'tool_result' | 'tool_started' | 'resumed' | 'files_untracked';

export interface RunJournalTable {
  execution_id: string;
  /** The sequence of the run's user.message. */
  run_start: number;
  /** 1, 2, ... in the order the run took its steps. */
  step: number;
  kind: JournalKind;
  /** The step as JSON (journal.ts). */
  body: string;
  created_at: string;
}

/** Which of a run's folders a checkpointed file is in. */
export type CheckpointArea = 'output' | 'workspace';

export interface RunCheckpointFilesTable {
  execution_id: string;
  run_start: number;
  area: CheckpointArea;
  /** Relative, with forward slashes. */
  path: string;
  sha256: string;
  size: number;
}

/** A node of a cluster and when it last said it was alive (distributed mode). */
export interface ClusterNodesTable {
  node_id: string;
  seen_at: string;
}

/** Work one node of a cluster does for all (sweeps), held by `holder` until `expires_at`. */
export interface ClusterLeasesTable {
  name: string;
  holder: string;
  expires_at: string;
}

/** A file a workspace uploaded for its runs (DESIGN §15); its bytes are the blob `sha256`. */
export interface InputFilesTable {
  /** The list order; `id` is the public id. */
  number: Generated<number>;
  id: string;
  workspace_id: string;
  /** Who uploaded it. */
  user_id: string;
  /** Cleaned: no path parts, control characters or leading dots. */
  filename: string;
  size: number;
  mime_type: string;
  sha256: string;
  created_at: string;
  /** When the sweep deletes it; null once a run was given it. */
  expires_at: string | null;
}

/** One file an execution was given: an uploaded file or an artifact's files, in the order asked for. */
export interface ExecutionFilesTable {
  execution_id: string;
  position: number;
  /** Exactly one of the two is set. No foreign key: the run's record outlives what it names. */
  file_id: string | null;
  artifact_id: string | null;
}

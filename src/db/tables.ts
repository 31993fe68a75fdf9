import type { ColumnType, Generated } from 'kysely';

/**
 * Row types of every table. Timestamps travel as ISO-8601 strings on both engines
 * (TEXT in SQLite, timestamptz in PostgreSQL, parsed back to ISO strings), ids are
 * text UUIDs, and flags are 0/1 integers because SQLite has no boolean type.
 */
export interface Tables {
  users: UsersTable;
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  auth_tokens: AuthTokensTable;
  api_keys: ApiKeysTable;
  activations: ActivationsTable;
  executions: ExecutionsTable;
  execution_events: ExecutionEventsTable;
  execution_event_blocks: ExecutionEventBlocksTable;
  artifacts: ArtifactsTable;
  artifact_files: ArtifactFilesTable;
  workspace_skills: WorkspaceSkillsTable;
  uploaded_skill_files: UploadedSkillFilesTable;
  run_journal: RunJournalTable;
  run_checkpoint_files: RunCheckpointFilesTable;
  transactions: TransactionsTable;
  checkout_sessions: CheckoutSessionsTable;
  payment_events: PaymentEventsTable;
  oauth_records: OAuthRecordsTable;
  oauth_grant_workspaces: OAuthGrantWorkspacesTable;
  agent_connect_requests: AgentConnectRequestsTable;
  cluster_nodes: ClusterNodesTable;
  cluster_leases: ClusterLeasesTable;
  agent_threads: AgentThreadsTable;
  thread_records: ThreadRecordsTable;
  thread_approvals: ThreadApprovalsTable;
  thread_runs: ThreadRunsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_messages: WebhookMessagesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  credit_holds: CreditHoldsTable;
  thread_turn_claims: ThreadTurnClaimsTable;
  input_files: InputFilesTable;
  execution_files: ExecutionFilesTable;
  password_resets: PasswordResetsTable;
  workspace_invitations: WorkspaceInvitationsTable;
}

/** Credits held for a house-key model call under way (billing/credit-holds.store.ts). */
export interface CreditHoldsTable {
  id: string;
  user_id: string;
  amount: number;
  /** What the hold is for, as people read it in logs: "run <execution id>" or "turn <thread row id>". */
  owner: string;
  /** The node whose call holds it: at that node's start, its holds are let go. */
  node_id: string;
  /** After this no call can still be waiting on it, so anyone may let it go. */
  expires_at: string;
  created_at: string;
}

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

export type AgentConnectStatus = 'pending' | 'approved' | 'denied';

/** A key's request to narrow its own scopes, until its owner decides (src/consent/). */
export interface AgentConnectRequestsTable {
  id: string;
  key_id: string;
  user_id: string;
  workspace_id: string;
  /** Space-separated, as OAuth writes scopes. */
  scopes: string;
  label: string | null;
  status: AgentConnectStatus;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
}

/** One of oidc-provider's stored models (src/oauth/adapter.ts); payload is its JSON. */
export interface OAuthRecordsTable {
  model: string;
  id: string;
  payload: string;
  grant_id: string | null;
  uid: string | null;
  expires_at: string | null;
  consumed_at: string | null;
}

/** The workspace chosen at consent, for every token of the grant. */
export interface OAuthGrantWorkspacesTable {
  grant_id: string;
  user_id: string;
  workspace_id: string;
  created_at: string;
}

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

export type WorkspaceRole = 'owner' | 'admin' | 'member';
export type ActivationStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'consumed';

export interface UsersTable {
  id: string;
  email: string;
  password_hash: string;
  is_admin: number;
  personal_workspace_id: string;
  created_at: string;
  /** Always the sum of the user's transactions (see ledger/ledger.store.ts). */
  balance: Generated<number>;
  /** The sum of the user's charges, as a positive number. */
  total_spent: Generated<number>;
  /** Credits held for model calls under way: not spent, but not spendable either (the sum of their credit_holds). */
  held: Generated<number>;
  subscription_expires_at: string | null;
  site_license_until: string | null;
  /** The BYOK key, sealed (AES-256-GCM); never returned. */
  byok_sealed: string | null;
  byok_preview: string | null;
  byok_provider: string | null;
}

export interface WorkspacesTable {
  id: string;
  /** Null for a personal workspace. */
  name: string | null;
  is_personal: number;
  created_at: string;
}

export interface WorkspaceMembersTable {
  workspace_id: string;
  user_id: string;
  role: WorkspaceRole;
  created_at: string;
}

export interface WorkspaceInvitationsTable {
  id: string;
  workspace_id: string;
  /** Normalized (trimmed, lower case): the account that may accept it has this email. */
  email: string;
  role: WorkspaceRole;
  /** SHA-256 of the link's token; the token itself is only ever in the mail. */
  token_hash: string;
  invited_by: string | null;
  created_at: string;
  expires_at: string;
  accepted_at: string | null;
  accepted_by: string | null;
  revoked_at: string | null;
}

export interface PasswordResetsTable {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface AuthTokensTable {
  id: string;
  user_id: string;
  token_hash: string;
  active_workspace_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  workspace_id: string;
  label: string;
  key_hash: string;
  key_preview: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  /** The scopes an approved scoped consent narrowed the key to (space-separated); null: full access. */
  scopes: string | null;
}

export interface ActivationsTable {
  id: string;
  device_code_hash: string;
  user_code: string;
  status: ActivationStatus;
  client_label: string;
  client_ua: string;
  client_ip: string;
  created_at: string;
  expires_at: string;
  decided_by: string | null;
  decided_at: string | null;
  workspace_id: string | null;
  api_key_id: string | null;
  /** The minted key, encrypted, between approval and its one claim. */
  sealed_key: string | null;
  claimed_at: string | null;
  /** Bumps on every state change; the compare-and-set guard. */
  version: Generated<number>;
}

/** The frames of BLOCK_EVENTS consecutive events, joined (see event-blocks.store.ts). */
export interface ExecutionEventBlocksTable {
  execution_id: string;
  block: number;
  frames: string;
}

export type ArtifactStatus = 'pending' | 'completed' | 'failed';
export type ArtifactType = 'output' | 'skill';

export interface ArtifactsTable {
  /** The list order; `id` is the public id. */
  number: Generated<number>;
  id: string;
  workspace_id: string;
  /** Who ran the execution that wrote it. */
  user_id: string;
  execution_id: string;
  skill_slug: string;
  skill_name: string;
  title: string;
  file_type: string;
  artifact_type: ArtifactType;
  input_text: string;
  content_size: number;
  created_skill_slug: string | null;
  /** JSON text. */
  metadata: string | null;
  is_installed: number;
  bundle_type: 'directory' | null;
  status: ArtifactStatus;
  cost: number;
  execution_time_ms: number;
  created_at: string;
  is_public: number;
  /** JSON text; bundles only. */
  manifest: string | null;
  /** The file that stands for the artifact: its only file, or a bundle's main file. */
  main_path: string | null;
}

export interface ArtifactFilesTable {
  artifact_id: string;
  /** Relative, with forward slashes. */
  path: string;
  /** Hex digest of the content; also the blob's name. */
  sha256: string;
  size: number;
  /** Unsigned CRC-32 of the content, for ZIP headers. */
  crc32: number;
  mime_type: string;
}

/** A skill installed from an artifact into one workspace. */
export interface WorkspaceSkillsTable {
  workspace_id: string;
  slug: string;
  artifact_id: string | null;
  /** The folder its files were written to. */
  dir: string;
  created_at: string;
}

/** A file of a skill installed from an uploaded folder (its workspace_skills row has no artifact). */
export interface UploadedSkillFilesTable {
  workspace_id: string;
  slug: string;
  /** Relative, with forward slashes. */
  path: string;
  /** Hex digest of the content; also the blob's name. */
  sha256: string;
  size: number;
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

export type TransactionType = 'usage' | 'purchase';

/** The ledger: rows are only ever added. */
export interface TransactionsTable {
  id: Generated<number>;
  user_id: string;
  /** Signed Ds: purchases positive, usage negative. */
  amount: number;
  type: TransactionType;
  description: string;
  execution_id: string | null;
  payment_session_id: string | null;
  created_at: string;
  /** Which charge of its execution this is: 0 the run's price, n its nth model call. */
  model_call: ColumnType<number, number | undefined, never>;
}

export type CheckoutKind = 'pack' | 'subscription';
export type CheckoutStatus = 'open' | 'paid' | 'canceled';

/** A checkout started here: what it is for and whom; the provider's events settle it. */
export interface CheckoutSessionsTable {
  /** The provider's session id (ours, for the local checkout). */
  id: string;
  provider: 'stripe' | 'local';
  user_id: string;
  kind: CheckoutKind;
  pack_id: string | null;
  credits: number;
  price_cents: number;
  email: string;
  success_url: string;
  cancel_url: string;
  status: CheckoutStatus;
  /** The provider's payment (a payment intent or subscription), which refunds name. */
  payment_reference: string | null;
  credits_refunded: number;
  created_at: string;
  paid_at: string | null;
  /** A subscription's: when it was cancelled (it renews no more), by its person or at the provider. */
  subscription_cancelled_at: string | null;
}

export interface PaymentEventsTable {
  id: string;
  type: string;
  received_at: string;
}

/** An outbound webhook endpoint of a workspace; its signing secret is sealed at rest. */
export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  description: string;
  /** A JSON array of the event types it receives. */
  event_types: string;
  secret_sealed: string;
  /** The secret a rotation replaced: attempts are signed with it too until `previous_secret_until`. */
  previous_secret_sealed: string | null;
  previous_secret_until: string | null;
  enabled: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** One event to tell a workspace's endpoints about; `id` is the webhook-id of every attempt. */
export interface WebhookMessagesTable {
  id: string;
  workspace_id: string;
  event_type: string;
  /** The exact body sent (and signed). */
  payload: string;
  created_at: string;
}

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A message on its way to one endpoint: its retry state, and the lease of the node sending it. */
export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  message_id: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  locked_until: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
}

/** The delivery log: one row per attempt. */
export interface WebhookAttemptsTable {
  delivery_id: string;
  number: number;
  attempted_at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
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

import type { ArtifactFilesTable, ArtifactsTable, UploadedSkillFilesTable, WorkspaceSkillsTable } from './tables-artifacts.js';
import type { CheckoutSessionsTable, CreditHoldsTable, PaymentEventsTable, TransactionsTable } from './tables-billing.js';
import type {
  ActivationsTable,
  AgentConnectRequestsTable,
  ApiKeysTable,
  AuthTokensTable,
  OAuthGrantWorkspacesTable,
  OAuthRecordsTable,
  PasswordResetsTable,
  UsersTable,
  WorkspaceInvitationsTable,
  WorkspaceMembersTable,
  WorkspacesTable,
} from './tables-identity.js';
import type {
  ClusterLeasesTable,
  ClusterNodesTable,
  ExecutionEventBlocksTable,
  ExecutionEventsTable,
  ExecutionFilesTable,
  ExecutionsTable,
  InputFilesTable,
  RunCheckpointFilesTable,
  RunJournalTable,
} from './tables-runs.js';
import type {
  AgentThreadsTable,
  ThreadApprovalsTable,
  ThreadRecordsTable,
  ThreadRunsTable,
  ThreadTurnClaimsTable,
} from './tables-threads.js';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
  WebhookMessagesTable,
} from './tables-webhooks.js';

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

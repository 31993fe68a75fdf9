import type { Generated } from 'kysely';

/* Row types of people, workspaces, credentials, device activations and OAuth grants (the `Tables` of tables.ts lists them all). */

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

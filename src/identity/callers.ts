import type { WorkspaceRole } from '../db/tables-identity.js';
import { Forbidden } from '../errors.js';
import type { Caller, CredentialKind } from '../ports/callers.js';
import { standingOfRow } from './subscription-mode.js';
import type { UserRow } from './users.store.js';

/**
 * The one "owner or admin" rule: a workspace's owners and admins manage it, plain members do
 * not. `isAdmin` (the service's own admins) passes too where the caller's credential says so;
 * a check against a membership row alone leaves it out. `refusal` says what was refused.
 */
export function requireOwnerOrAdmin(who: { role: WorkspaceRole; isAdmin?: boolean }, refusal: string): void {
  if (who.role === 'member' && !who.isAdmin) throw new Forbidden(refusal);
}

/**
 * What only the person may do, signed in to the app: a key or an OAuth token acts for them
 * in a workspace, but does not manage their account. `refusal` says what was refused.
 */
export function requireSignedInPerson(caller: Pick<Caller, 'kind'>, refusal: string): void {
  if (caller.kind !== 'session') throw new Forbidden(refusal);
}

/** A credential as a signed URL refers to it, without its secret. */
export interface CredentialRef {
  kind: CredentialKind;
  credentialId: string;
  workspaceId: string;
}

/** The user's columns a credential lookup reads beside the credential itself. */
interface CallerUserColumns {
  user_id: string;
  email: string;
  is_admin: number;
  created_at: string;
  personal_workspace_id: string;
  subscription_expires_at: string | null;
  site_license_until: string | null;
  byok_provider: string | null;
}

interface CallerWorkspace {
  id: string;
  name: string | null;
  personal: boolean;
  role: WorkspaceRole;
}

export function callerOfRows(
  kind: CredentialKind,
  credentialId: string,
  user: CallerUserColumns,
  workspace: CallerWorkspace,
): Caller {
  return {
    kind,
    credentialId,
    userId: user.user_id,
    email: user.email,
    isAdmin: user.is_admin === 1,
    userCreatedAt: user.created_at,
    personalWorkspaceId: user.personal_workspace_id,
    workspaceId: workspace.id,
    workspaceName: workspace.name,
    workspacePersonal: workspace.personal,
    role: workspace.role,
    billing: standingOfRow(user),
  };
}

/** A person who signed in on a page rather than with a token, acting in their personal workspace. */
export function personalCaller(user: UserRow, credentialId: string): Caller {
  return callerOfRows(
    'session',
    credentialId,
    { ...user, user_id: user.id },
    { id: user.personal_workspace_id, name: null, personal: true, role: 'owner' },
  );
}

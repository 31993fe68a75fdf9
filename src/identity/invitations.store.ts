import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../db/tables.js';
import type { WorkspaceInvitationsTable, WorkspaceRole } from '../db/tables-identity.js';

export type InvitationRow = Selectable<WorkspaceInvitationsTable>;

/** An invitation with the email of whoever sent it, for the workspace's list. */
export type ListedInvitationRow = InvitationRow & { inviter_email: string | null };

export async function insertInvitation(
  db: Kysely<Tables>,
  invitation: {
    id: string;
    workspaceId: string;
    email: string;
    role: WorkspaceRole;
    tokenHash: string;
    invitedBy: string;
    createdAt: string;
    expiresAt: string;
  },
): Promise<void> {
  await db
    .insertInto('workspace_invitations')
    .values({
      id: invitation.id,
      workspace_id: invitation.workspaceId,
      email: invitation.email,
      role: invitation.role,
      token_hash: invitation.tokenHash,
      invited_by: invitation.invitedBy,
      created_at: invitation.createdAt,
      expires_at: invitation.expiresAt,
      accepted_at: null,
      accepted_by: null,
      revoked_at: null,
    })
    .execute();
}

/** The invitations of a workspace still open to use or to resend: neither accepted nor revoked. */
export function openInvitations(db: Kysely<Tables>, workspaceId: string): Promise<ListedInvitationRow[]> {
  return openInvitationsOf(db, workspaceId).orderBy('i.created_at', 'desc').orderBy('i.id').execute();
}

export function findOpenInvitation(
  db: Kysely<Tables>,
  workspaceId: string,
  invitationId: string,
): Promise<ListedInvitationRow | undefined> {
  return openInvitationsOf(db, workspaceId).where('i.id', '=', invitationId).executeTakeFirst();
}

/** A workspace's invitations neither accepted nor revoked, each with its sender's email. */
function openInvitationsOf(db: Kysely<Tables>, workspaceId: string) {
  return db
    .selectFrom('workspace_invitations as i')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .selectAll('i')
    .select('u.email as inviter_email')
    .where('i.workspace_id', '=', workspaceId)
    .where('i.accepted_at', 'is', null)
    .where('i.revoked_at', 'is', null);
}

/** The invitation a link's token stands for, with its workspace's name and its sender's email. */
export function invitationByToken(db: Kysely<Tables>, tokenHash: string) {
  return db
    .selectFrom('workspace_invitations as i')
    .innerJoin('workspaces as w', 'w.id', 'i.workspace_id')
    .leftJoin('users as u', 'u.id', 'i.invited_by')
    .selectAll('i')
    .select(['w.name as workspace_name', 'u.email as inviter_email'])
    .where('i.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** A new link for an open invitation: the old one stops working, and the new one works from now. */
export async function replaceToken(
  db: Kysely<Tables>,
  invitationId: string,
  change: { tokenHash: string; createdAt: string; expiresAt: string },
): Promise<void> {
  await db
    .updateTable('workspace_invitations')
    .set({ token_hash: change.tokenHash, created_at: change.createdAt, expires_at: change.expiresAt })
    .where('id', '=', invitationId)
    .execute();
}

/** Revokes an open invitation of the workspace; false when it has none such. */
export async function revokeInvitation(
  db: Kysely<Tables>,
  workspaceId: string,
  invitationId: string,
  nowIso: string,
): Promise<boolean> {
  const result = await db
    .updateTable('workspace_invitations')
    .set({ revoked_at: nowIso })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', invitationId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Marks an invitation used, if it is open and unexpired, in one statement: two uses racing
 * cannot both succeed.
 */
export async function useInvitation(db: Kysely<Tables>, invitationId: string, userId: string, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('workspace_invitations')
    .set({ accepted_at: nowIso, accepted_by: userId })
    .where('id', '=', invitationId)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

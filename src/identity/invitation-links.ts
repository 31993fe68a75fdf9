import type { AppContext } from '../context.js';
import { lockRow } from '../db/locks.js';
import type { WorkspaceRole } from '../db/tables-identity.js';
import { Expired, Forbidden, NotFound } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { invalidate } from '../realtime/control-messages.js';
import { sha256Hex } from '../secrets.js';
import { requireSignedInPerson } from './callers.js';
import { invitationByToken, useInvitation } from './invitations.store.js';
import { invalidateForUser } from './user-invalidation.js';
import { visibleWorkspace, type WorkspaceView } from './workspaces.js';
import { findMembership, insertMember } from './workspaces.store.js';

/** What the link's page shows before anyone accepts: whose invitation, to what. */
export interface InvitationPreview {
  workspaceName: string;
  email: string;
  role: WorkspaceRole;
  invitedBy: string | null;
  expiresAt: string;
}

const ASK_AGAIN = 'Ask whoever invited you to send a new invitation.';

/**
 * The open, unexpired invitation a token stands for; otherwise a refusal saying what
 * happened to it. A token never issued is not found: it tells nothing about any invitation.
 */
async function liveInvitation(ctx: Pick<AppContext, 'db' | 'clock'>, token: string) {
  const row = await invitationByToken(ctx.db, sha256Hex(token));
  if (!row) {
    throw new NotFound(
      'This invitation link is not one we know, or a newer mail replaced it. Open the whole link from the newest invitation mail; if that does not work, ask for a new invitation.',
    );
  }
  if (row.accepted_at !== null) {
    throw new Expired(
      `This invitation has been used already. If you accepted it, find the workspace under Workspaces. If not, ${ASK_AGAIN.toLowerCase()}`,
    );
  }
  if (row.revoked_at !== null) throw new Expired(`This invitation was withdrawn by the workspace. ${ASK_AGAIN}`);
  if (row.expires_at <= ctx.clock.now().toISOString()) throw new Expired(`This invitation has expired. ${ASK_AGAIN}`);
  return row;
}

export async function previewInvitation(ctx: Pick<AppContext, 'db' | 'clock'>, token: string): Promise<InvitationPreview> {
  const row = await liveInvitation(ctx, token);
  return {
    workspaceName: row.workspace_name ?? 'Team',
    email: row.email,
    role: row.role,
    invitedBy: row.inviter_email,
    expiresAt: row.expires_at,
  };
}

/**
 * Joins the workspace through a link, once. The account signed in must have the invited
 * email: the link was mailed to that address, and a link forwarded to someone else does
 * not let them in under another name.
 */
export async function acceptInvitation(
  ctx: Pick<AppContext, 'db' | 'clock' | 'control'>,
  caller: Caller,
  token: string,
): Promise<WorkspaceView> {
  requireSignedInPerson(caller, 'Accept an invitation signed in to the app, as the person it was sent to.');
  const row = await liveInvitation(ctx, token);
  if (row.email !== caller.email.toLowerCase()) {
    throw new Forbidden(
      `This invitation is for ${row.email}, and you are signed in as ${caller.email}. Sign out, then sign in or create an account with ${row.email}.`,
    );
  }
  const nowIso = ctx.clock.now().toISOString();
  await ctx.db.transaction().execute(async (trx) => {
    await lockRow(trx, 'workspaces', row.workspace_id);
    if (!(await useInvitation(trx, row.id, caller.userId, nowIso))) {
      throw new Expired(`This invitation has just been used, withdrawn or has expired. ${ASK_AGAIN}`);
    }
    // Someone added directly in the meantime keeps the role they were given.
    if (!(await findMembership(trx, caller.userId, row.workspace_id))) {
      await insertMember(trx, { workspaceId: row.workspace_id, userId: caller.userId, role: row.role, createdAt: nowIso });
    }
  });
  invalidate(ctx, row.workspace_id, ['members']);
  await invalidateForUser(ctx, caller.userId, ['workspaces']);
  const workspace = await visibleWorkspace(ctx, caller, row.workspace_id);
  return {
    id: workspace.id,
    name: workspace.name,
    personal: false,
    role: workspace.role,
    createdAt: workspace.created_at,
  };
}

import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import { lockRow } from '../db/locks.js';
import type { Tables } from '../db/tables.js';
import type { WorkspaceRole } from '../db/tables-identity.js';
import { Conflict, Forbidden, NotFound, RateLimited, ServiceUnavailable } from '../errors.js';
import type { Mailer } from '../mail/mailer.js';
import type { Caller } from '../ports/callers.js';
import { randomString, sha256Hex } from '../secrets.js';
import { requireOwnerOrAdmin } from './callers.js';
import {
  findOpenInvitation,
  insertInvitation,
  type ListedInvitationRow,
  openInvitations,
  replaceToken,
  revokeInvitation,
} from './invitations.store.js';
import { normalizeEmail } from './users.js';
import { reachableWorkspace } from './workspaces.js';
import { listMembers, type MembershipRow } from './workspaces.store.js';

type InvitingContext = Pick<AppContext, 'db' | 'clock' | 'config' | 'rateLimits' | 'mailer' | 'log'>;

export interface InvitationView {
  id: string;
  workspaceId: string;
  email: string;
  role: WorkspaceRole;
  /** The email of whoever sent it (last), or null when that account is gone. */
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
  /** `expired`: the link no longer works, but Resend makes a new one. */
  status: 'pending' | 'expired';
}

export const INVITATION_TOKEN_PREFIX = 'sklt_invite_';
const HOUR_MS = 60 * 60 * 1000;
/** Invitation mails (new or resent) one workspace may send an hour: enough for a team, too few for spam. */
export const INVITATIONS_PER_WORKSPACE_HOUR = 20;
/** Invitation mails to one address an hour, from every workspace together. */
export const INVITATIONS_PER_ADDRESS_HOUR = 3;

const PERSONAL = 'Your personal workspace is yours alone. Create a team workspace to invite people.';
const ADMINS_ONLY = 'Only an owner or an admin can invite people or manage invitations. Ask one of them.';
const NOT_FOUND = 'There is no such open invitation in this workspace. It may have been accepted or revoked already.';

function view(row: ListedInvitationRow, nowIso: string): InvitationView {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    email: row.email,
    role: row.role,
    invitedBy: row.inviter_email,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    status: row.expires_at > nowIso ? 'pending' : 'expired',
  };
}

/** A team workspace the caller manages; a workspace they cannot reach is not found. */
async function managedTeam(ctx: Pick<AppContext, 'db'>, caller: Caller, workspaceId: string): Promise<MembershipRow> {
  const workspace = await reachableWorkspace(ctx, caller, workspaceId);
  if (workspace.is_personal === 1) throw new Forbidden(PERSONAL);
  requireOwnerOrAdmin({ role: workspace.role }, ADMINS_ONLY);
  return workspace;
}

function requireMailer(ctx: InvitingContext): Mailer {
  if (!ctx.mailer) {
    throw new ServiceUnavailable(
      'This server does not send email, so it cannot mail invitations. Add people who already have an account by their email instead.',
    );
  }
  return ctx.mailer;
}

/**
 * Counts one invitation mail against the workspace's and the address's hourly allowance;
 * both are asked first, so a mail one of them refuses costs the other nothing.
 */
async function allowMail(ctx: InvitingContext, workspaceId: string, email: string): Promise<void> {
  const nowMs = ctx.clock.nowMs();
  const rule = (limit: number) => ({ kind: 'window' as const, limit, windowMs: HOUR_MS });
  const byWorkspace = { key: `invitations:${workspaceId}`, rule: rule(INVITATIONS_PER_WORKSPACE_HOUR) };
  const byAddress = { key: `invitation-mails:${sha256Hex(email)}`, rule: rule(INVITATIONS_PER_ADDRESS_HOUR) };
  const workspaceLeft = await ctx.rateLimits.peek(byWorkspace.key, byWorkspace.rule, nowMs);
  if (!workspaceLeft.allowed) {
    throw new RateLimited(
      `This workspace has sent ${INVITATIONS_PER_WORKSPACE_HOUR} invitations in the last hour. Wait a while, then invite the rest.`,
      Math.ceil(workspaceLeft.retryAfterMs / 1000),
    );
  }
  const addressLeft = await ctx.rateLimits.consume(byAddress.key, byAddress.rule, nowMs);
  if (!addressLeft.allowed) {
    throw new RateLimited(
      `${email} has been sent ${INVITATIONS_PER_ADDRESS_HOUR} invitations in the last hour. Wait a while before sending another.`,
      Math.ceil(addressLeft.retryAfterMs / 1000),
    );
  }
  await ctx.rateLimits.consume(byWorkspace.key, byWorkspace.rule, nowMs);
}

function mailText(ctx: InvitingContext, caller: Caller, workspace: MembershipRow, role: WorkspaceRole, url: string): string {
  return [
    `${caller.email} invited you to join the workspace "${workspace.name ?? 'Team'}" on Skillet as ${role === 'member' ? 'a member' : `an ${role}`}.`,
    '',
    `Join here (the link works once, for ${ctx.config.invitationTtlDays} days): ${url}`,
    '',
    'If you have no Skillet account with this address yet, the link lets you create one.',
    'If you did not expect this invitation, ignore this mail.',
  ].join('\n');
}

/** A fresh link: its token goes only into the mail, its hash only into the database. */
function freshLink(ctx: InvitingContext) {
  const token = INVITATION_TOKEN_PREFIX + randomString(40);
  const now = ctx.clock.now();
  return {
    url: `${ctx.config.publicUrl}/app/invitation#token=${token}`,
    tokenHash: sha256Hex(token),
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + ctx.config.invitationTtlDays * 24 * HOUR_MS).toISOString(),
  };
}

/** Sends the mail; if the mail server fails, the invitation stays and the person is told to resend it. */
async function sendInvitation(ctx: InvitingContext, mailer: Mailer, to: string, subject: string, text: string): Promise<void> {
  try {
    await mailer.send({ to, subject, text });
  } catch (error) {
    ctx.log.error({ err: error }, 'an invitation mail could not be sent');
    throw new ServiceUnavailable(
      `The invitation to ${to} is saved, but the mail server did not take its mail. Try Resend in a few minutes.`,
    );
  }
}

/** Refuses an invitation for someone already in the team, or already invited (checked with the workspace row held). */
async function requireNewcomer(trx: Kysely<Tables>, workspaceId: string, email: string): Promise<void> {
  await lockRow(trx, 'workspaces', workspaceId);
  if ((await listMembers(trx, workspaceId)).some((member) => member.email === email)) {
    throw new Conflict(`${email} is already a member of this workspace.`);
  }
  if ((await openInvitations(trx, workspaceId)).some((invitation) => invitation.email === email)) {
    throw new Conflict(`${email} has been invited already. Use Resend on their invitation to mail the link again.`);
  }
}

export async function invite(
  ctx: InvitingContext,
  caller: Caller,
  workspaceId: string,
  request: { email: string; role: WorkspaceRole },
): Promise<InvitationView> {
  const workspace = await managedTeam(ctx, caller, workspaceId);
  if (request.role === 'owner' && workspace.role !== 'owner')
    throw new Forbidden('Only an owner can invite an owner. Invite them as an admin, or ask an owner.');
  const email = normalizeEmail(request.email);
  const mailer = requireMailer(ctx);
  const link = freshLink(ctx);
  const id = randomUUID();
  await ctx.db.transaction().execute(async (trx) => {
    await requireNewcomer(trx, workspaceId, email);
    await allowMail(ctx, workspaceId, email);
    await insertInvitation(trx, { id, workspaceId, email, role: request.role, invitedBy: caller.userId, ...link });
  });
  const subject = `${caller.email} invited you to ${workspace.name ?? 'a team'} on Skillet`;
  await sendInvitation(ctx, mailer, email, subject, mailText(ctx, caller, workspace, request.role, link.url));
  return invitationOf(ctx, workspaceId, id);
}

async function invitationOf(ctx: Pick<AppContext, 'db' | 'clock'>, workspaceId: string, id: string): Promise<InvitationView> {
  const row = await findOpenInvitation(ctx.db, workspaceId, id);
  if (!row) throw new NotFound(NOT_FOUND);
  return view(row, ctx.clock.now().toISOString());
}

/** The invitations not yet accepted or revoked, the newest first, for the workspace's owners and admins. */
export async function listInvitations(ctx: InvitingContext, caller: Caller, workspaceId: string): Promise<InvitationView[]> {
  await managedTeam(ctx, caller, workspaceId);
  const nowIso = ctx.clock.now().toISOString();
  return (await openInvitations(ctx.db, workspaceId)).map((row) => view(row, nowIso));
}

/** Mails a new link for an open invitation, working for the full time again; the old link stops working. */
export async function resendInvitation(
  ctx: InvitingContext,
  caller: Caller,
  workspaceId: string,
  invitationId: string,
): Promise<InvitationView> {
  const workspace = await managedTeam(ctx, caller, workspaceId);
  const mailer = requireMailer(ctx);
  const row = await findOpenInvitation(ctx.db, workspaceId, invitationId);
  if (!row) throw new NotFound(NOT_FOUND);
  if (row.role === 'owner' && workspace.role !== 'owner')
    throw new Forbidden('Only an owner can resend an invitation to be an owner. Ask an owner to resend it.');
  await allowMail(ctx, workspaceId, row.email);
  const link = freshLink(ctx);
  await replaceToken(ctx.db, invitationId, link);
  const subject = `Reminder: ${caller.email} invited you to ${workspace.name ?? 'a team'} on Skillet`;
  await sendInvitation(ctx, mailer, row.email, subject, mailText(ctx, caller, workspace, row.role, link.url));
  return invitationOf(ctx, workspaceId, invitationId);
}

/** Withdraws an open invitation: its link stops working at once. */
export async function withdrawInvitation(
  ctx: InvitingContext,
  caller: Caller,
  workspaceId: string,
  invitationId: string,
): Promise<void> {
  await managedTeam(ctx, caller, workspaceId);
  if (!(await revokeInvitation(ctx.db, workspaceId, invitationId, ctx.clock.now().toISOString()))) {
    throw new NotFound(NOT_FOUND);
  }
}

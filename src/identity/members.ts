import type { Kysely } from 'kysely';
import type { AppContext } from '../context.js';
import { lockRow } from '../db/locks.js';
import type { Tables } from '../db/tables.js';
import type { WorkspaceRole } from '../db/tables-identity.js';
import { Conflict, Forbidden, InvalidInput, NotFound } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { announceRevocation, invalidate } from '../realtime/control-messages.js';
import { revokeKeyById } from './api-keys.store.js';
import { requireOwnerOrAdmin } from './callers.js';
import { invalidateForUser } from './user-invalidation.js';
import { type MemberView, reachableWorkspace, type WorkspaceView } from './workspaces.js';
import {
  credentialsIn,
  deleteMember,
  listMembers,
  type MembershipRow,
  memberRoles,
  setMemberRole,
  renameWorkspace as storeName,
} from './workspaces.store.js';

type MembersContext = Pick<AppContext, 'db' | 'clock' | 'control' | 'credentials'>;

const PERSONAL = 'Your personal workspace is yours alone. Create a team workspace to share work with others.';
const ONLY_OWNER_CHANGES_OWNERS = 'Only an owner can make someone an owner, or change or remove an owner.';

/** A team workspace the caller is in (a personal one has nobody else to manage). */
async function teamOf(ctx: MembersContext, caller: Caller, workspaceId: string): Promise<MembershipRow> {
  const workspace = await reachableWorkspace(ctx, caller, workspaceId);
  if (workspace.is_personal === 1) throw new Forbidden(PERSONAL);
  return workspace;
}

export async function renameTeamWorkspace(
  ctx: MembersContext,
  caller: Caller,
  workspaceId: string,
  name: string,
): Promise<WorkspaceView> {
  const workspace = await teamOf(ctx, caller, workspaceId);
  requireOwnerOrAdmin({ role: workspace.role }, 'Only an owner or an admin can rename the workspace. Ask one of them.');
  const trimmed = name.trim();
  if (trimmed === '') throw new InvalidInput('Give the workspace a name.');
  await storeName(ctx.db, workspaceId, trimmed);
  // Every member's list of workspaces shows the name, wherever each is working now.
  for (const member of await memberRoles(ctx.db, workspaceId)) await invalidateForUser(ctx, member.user_id, ['workspaces']);
  return { id: workspace.id, name: trimmed, personal: false, role: workspace.role, createdAt: workspace.created_at };
}

/**
 * The members' roles with the workspace row held until the transaction ends, so every check
 * below reads roles no concurrent change can alter: the caller's own included (someone
 * demoted a moment ago acts as what they are now).
 */
async function heldRoles(trx: Kysely<Tables>, workspaceId: string, caller: Caller, userId: string) {
  await lockRow(trx, 'workspaces', workspaceId);
  const roles = await memberRoles(trx, workspaceId);
  const callerRole = roles.find((member) => member.user_id === caller.userId)?.role;
  if (!callerRole) throw new NotFound('Workspace not found');
  const target = roles.find((member) => member.user_id === userId);
  if (!target) throw new NotFound('Member not found');
  return { roles, callerRole, target };
}

/**
 * The roles after a change, checked with the workspace row held: two owners demoting each
 * other at once cannot leave it with none.
 */
function requireAnOwner(roles: { user_id: string; role: WorkspaceRole }[], userId: string, next: WorkspaceRole | null): void {
  const owners = roles.filter((member) => (member.user_id === userId ? next === 'owner' : member.role === 'owner'));
  if (owners.length === 0) {
    throw new Conflict('A workspace needs an owner. Make someone else an owner first.');
  }
}

export async function changeMemberRole(
  ctx: MembersContext,
  caller: Caller,
  workspaceId: string,
  userId: string,
  role: WorkspaceRole,
): Promise<MemberView> {
  await teamOf(ctx, caller, workspaceId);
  await ctx.db.transaction().execute(async (trx) => {
    const { roles, callerRole, target } = await heldRoles(trx, workspaceId, caller, userId);
    requireOwnerOrAdmin({ role: callerRole }, 'Only an owner or an admin can change roles. Ask one of them.');
    if ((target.role === 'owner' || role === 'owner') && callerRole !== 'owner') throw new Forbidden(ONLY_OWNER_CHANGES_OWNERS);
    requireAnOwner(roles, userId, role);
    await setMemberRole(trx, workspaceId, userId, role);
  });
  // Their credentials carry the role they had: read again on the next request.
  ctx.credentials.forgetUser(userId);
  invalidate(ctx, workspaceId, ['members']);
  const member = (await listMembers(ctx.db, workspaceId)).find((row) => row.user_id === userId);
  if (!member) throw new NotFound('Member not found');
  return { workspaceId, userId, email: member.email, role: member.role };
}

/**
 * Takes someone out of a team: an owner or an admin removing a member, or anyone leaving.
 * Their keys bound to it are revoked, and their sessions acting in it go back to their
 * personal workspace; every control-plane socket they had open on it closes.
 */
export async function removeMember(ctx: MembersContext, caller: Caller, workspaceId: string, userId: string): Promise<void> {
  await teamOf(ctx, caller, workspaceId);
  const leaving = userId === caller.userId;
  const nowIso = ctx.clock.now().toISOString();
  const ended = await ctx.db.transaction().execute(async (trx) => {
    const { roles, callerRole, target } = await heldRoles(trx, workspaceId, caller, userId);
    if (!leaving) requireOwnerOrAdmin({ role: callerRole }, 'Only an owner or an admin can remove members. Ask one of them.');
    if (!leaving && target.role === 'owner' && callerRole !== 'owner') throw new Forbidden(ONLY_OWNER_CHANGES_OWNERS);
    if (leaving && target.role === 'owner' && roles.filter((member) => member.role === 'owner').length === 1) {
      throw new Conflict('You are the only owner. Make someone else an owner first, then leave.');
    }
    requireAnOwner(roles, userId, null);
    const credentials = await credentialsIn(trx, userId, workspaceId);
    await deleteMember(trx, workspaceId, userId);
    for (const keyId of credentials.keyIds) await revokeKeyById(trx, keyId, nowIso);
    return credentials;
  });
  ctx.credentials.forgetUser(userId);
  for (const credentialId of [...ended.keyIds, ...ended.sessionIds]) announceRevocation(ctx, credentialId);
  invalidate(ctx, workspaceId, ['members']);
  await invalidateForUser(ctx, userId, ['workspaces', 'keys']);
}

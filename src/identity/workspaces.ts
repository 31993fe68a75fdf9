import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.js';
import { isUniqueViolation } from '../db/errors.js';
import type { WorkspaceRole } from '../db/tables-identity.js';
import { Conflict, Forbidden, InvalidInput, NotFound } from '../errors.js';
import type { Caller } from '../ports/callers.js';
import { invalidate } from '../realtime/control-messages.js';
import { setActiveWorkspace } from './auth-tokens.js';
import { requireOwnerOrAdmin } from './callers.js';
import { strategyOf } from './credential-strategies.js';
import { invalidateForUser } from './user-invalidation.js';
import { normalizeEmail } from './users.js';
import { findUserByEmail } from './users.store.js';
import {
  findMembership,
  insertMember,
  insertTeamWorkspace,
  listMembers,
  listMemberships,
  type MembershipRow,
} from './workspaces.store.js';

export interface WorkspaceView {
  id: string;
  name: string | null;
  personal: boolean;
  role: WorkspaceRole;
  createdAt: string;
}

export interface MemberView {
  workspaceId: string;
  userId: string;
  email: string;
  role: WorkspaceRole;
}

export const WORKSPACE_NAME_MAX = 100;

function workspaceView(row: MembershipRow): WorkspaceView {
  return { id: row.id, name: row.name, personal: row.is_personal === 1, role: row.role, createdAt: row.created_at };
}

/** A workspace the caller is not a member of does not exist, as far as they can tell. */
export async function visibleWorkspace(ctx: Pick<AppContext, 'db'>, caller: Caller, workspaceId: string): Promise<MembershipRow> {
  const membership = await findMembership(ctx.db, caller.userId, workspaceId);
  if (!membership) throw new NotFound('Workspace not found');
  return membership;
}

export async function createTeamWorkspace(
  ctx: Pick<AppContext, 'db' | 'clock' | 'control'>,
  caller: Caller,
  name: string,
): Promise<WorkspaceView> {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw new InvalidInput('name must not be empty');
  const id = randomUUID();
  await insertTeamWorkspace(ctx.db, { id, name: trimmed, ownerId: caller.userId, createdAt: ctx.clock.now().toISOString() });
  await invalidateForUser(ctx, caller.userId, ['workspaces']);
  return workspaceView(await visibleWorkspace(ctx, caller, id));
}

export async function listWorkspaces(ctx: Pick<AppContext, 'db'>, caller: Caller): Promise<WorkspaceView[]> {
  return (await listMemberships(ctx.db, caller.userId)).map(workspaceView);
}

/**
 * A workspace the caller may act on by id: one they are a member of, and for a credential
 * bound to one workspace (an API key, an OAuth token), only that one.
 */
export async function reachableWorkspace(
  ctx: Pick<AppContext, 'db'>,
  caller: Caller,
  workspaceId: string,
): Promise<MembershipRow> {
  if (strategyOf(caller.kind).boundToWorkspace && workspaceId !== caller.workspaceId) throw new NotFound('Workspace not found');
  return visibleWorkspace(ctx, caller, workspaceId);
}

const ROLE_ORDER: readonly WorkspaceRole[] = ['owner', 'admin', 'member'];

/**
 * Who belongs to a workspace, for its members (owners first, then by email). A credential bound to one workspace (an
 * API key, an OAuth token) sees only that one's.
 */
export async function listWorkspaceMembers(
  ctx: Pick<AppContext, 'db'>,
  caller: Caller,
  workspaceId: string,
): Promise<MemberView[]> {
  await reachableWorkspace(ctx, caller, workspaceId);
  const rows = await listMembers(ctx.db, workspaceId);
  return rows
    .map((row) => ({ workspaceId: row.workspace_id, userId: row.user_id, email: row.email, role: row.role }))
    .sort((a, b) => ROLE_ORDER.indexOf(a.role) - ROLE_ORDER.indexOf(b.role) || a.email.localeCompare(b.email));
}

export async function addMember(
  ctx: Pick<AppContext, 'db' | 'clock' | 'control'>,
  caller: Caller,
  workspaceId: string,
  invite: { email: string; role: WorkspaceRole },
): Promise<MemberView> {
  const workspace = await visibleWorkspace(ctx, caller, workspaceId);
  requireOwnerOrAdmin({ role: workspace.role }, 'Only an owner or admin can add members');
  if (workspace.is_personal === 1) throw new Forbidden('A personal workspace has no other members');
  if (invite.role === 'owner' && workspace.role !== 'owner') throw new Forbidden('Only an owner can add an owner');

  const user = await findUserByEmail(ctx.db, normalizeEmail(invite.email));
  if (!user) throw new NotFound('No user with this email');
  try {
    await insertMember(ctx.db, { workspaceId, userId: user.id, role: invite.role, createdAt: ctx.clock.now().toISOString() });
  } catch (error) {
    if (isUniqueViolation(error)) throw new Conflict('This user is already a member of the workspace');
    throw error;
  }
  invalidate(ctx, workspaceId, ['members']);
  await invalidateForUser(ctx, user.id, ['workspaces']);
  return { workspaceId, userId: user.id, email: user.email, role: invite.role };
}

/** Points a session at another of its workspaces; a credential bound to its workspace stays there. */
export async function switchWorkspace(
  ctx: Pick<AppContext, 'db' | 'credentials'>,
  caller: Caller,
  workspaceId: string,
): Promise<WorkspaceView> {
  const bound = strategyOf(caller.kind).boundToWorkspace;
  if (bound) throw new Forbidden(bound.switchAway);
  const membership = await findMembership(ctx.db, caller.userId, workspaceId);
  if (!membership) throw new Forbidden('You are not a member of this workspace');
  await setActiveWorkspace(ctx, caller.credentialId, workspaceId);
  return workspaceView(membership);
}

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Applies an `x-workspace-id` header: a session may act in any workspace it belongs to. */
export async function inWorkspace(ctx: Pick<AppContext, 'db'>, caller: Caller, workspaceId: string): Promise<Caller> {
  if (!UUID_SHAPE.test(workspaceId)) throw new InvalidInput('x-workspace-id must be a workspace id (UUID)');
  const id = workspaceId.toLowerCase();
  if (id === caller.workspaceId) return caller;
  const bound = strategyOf(caller.kind).boundToWorkspace;
  if (bound) throw new Forbidden(bound.actElsewhere);
  const membership = await findMembership(ctx.db, caller.userId, id);
  if (!membership) throw new Forbidden('You are not a member of this workspace');
  return {
    ...caller,
    workspaceId: id,
    workspaceName: membership.name,
    workspacePersonal: membership.is_personal === 1,
    role: membership.role,
  };
}

import type { Kysely } from 'kysely';
import { preparedRows } from '../db/prepared-lookup.js';
import type { Tables } from '../db/tables.js';
import type { WorkspaceRole } from '../db/tables-identity.js';

export interface MembershipRow {
  id: string;
  name: string | null;
  is_personal: number;
  created_at: string;
  role: WorkspaceRole;
}

export async function insertTeamWorkspace(
  db: Kysely<Tables>,
  workspace: { id: string; name: string; ownerId: string; createdAt: string },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('workspaces')
      .values({ id: workspace.id, name: workspace.name, is_personal: 0, created_at: workspace.createdAt })
      .execute();
    await trx
      .insertInto('workspace_members')
      .values({ workspace_id: workspace.id, user_id: workspace.ownerId, role: 'owner', created_at: workspace.createdAt })
      .execute();
  });
}

const membershipColumns = ['w.id', 'w.name', 'w.is_personal', 'w.created_at', 'm.role'] as const;

/** A person's workspaces, personal first. Prepared: every grant of credits asks, to tell each workspace. */
export const listMemberships: (db: Kysely<Tables>, userId: string) => Promise<MembershipRow[]> = preparedRows(
  (db, userId: string) =>
    db
      .selectFrom('workspace_members as m')
      .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
      .select(membershipColumns)
      .where('m.user_id', '=', userId)
      .orderBy('w.is_personal', 'desc')
      .orderBy('w.created_at')
      .orderBy('w.id'),
);

export function findMembership(db: Kysely<Tables>, userId: string, workspaceId: string): Promise<MembershipRow | undefined> {
  return db
    .selectFrom('workspace_members as m')
    .innerJoin('workspaces as w', 'w.id', 'm.workspace_id')
    .select(membershipColumns)
    .where('m.user_id', '=', userId)
    .where('m.workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

export function listMembers(db: Kysely<Tables>, workspaceId: string) {
  return db
    .selectFrom('workspace_members as m')
    .innerJoin('users as u', 'u.id', 'm.user_id')
    .select(['m.workspace_id', 'm.user_id', 'u.email', 'm.role'])
    .where('m.workspace_id', '=', workspaceId)
    .execute();
}

export async function insertMember(
  db: Kysely<Tables>,
  member: { workspaceId: string; userId: string; role: WorkspaceRole; createdAt: string },
): Promise<void> {
  await db
    .insertInto('workspace_members')
    .values({ workspace_id: member.workspaceId, user_id: member.userId, role: member.role, created_at: member.createdAt })
    .execute();
}

export async function renameWorkspace(db: Kysely<Tables>, workspaceId: string, name: string): Promise<void> {
  await db.updateTable('workspaces').set({ name }).where('id', '=', workspaceId).execute();
}

/** The members' roles, read with the workspace held (lockRow) when `trx` is a transaction that locked it. */
export function memberRoles(db: Kysely<Tables>, workspaceId: string): Promise<{ user_id: string; role: WorkspaceRole }[]> {
  return db.selectFrom('workspace_members').select(['user_id', 'role']).where('workspace_id', '=', workspaceId).execute();
}

export async function setMemberRole(db: Kysely<Tables>, workspaceId: string, userId: string, role: WorkspaceRole): Promise<void> {
  await db
    .updateTable('workspace_members')
    .set({ role })
    .where('workspace_id', '=', workspaceId)
    .where('user_id', '=', userId)
    .execute();
}

export async function deleteMember(db: Kysely<Tables>, workspaceId: string, userId: string): Promise<void> {
  await db.deleteFrom('workspace_members').where('workspace_id', '=', workspaceId).where('user_id', '=', userId).execute();
}

/** A person's unrevoked keys bound to a workspace, and their sessions acting in it: what leaving it must end. */
export async function credentialsIn(db: Kysely<Tables>, userId: string, workspaceId: string) {
  const [keys, sessions] = await Promise.all([
    db
      .selectFrom('api_keys')
      .select('id')
      .where('user_id', '=', userId)
      .where('workspace_id', '=', workspaceId)
      .where('revoked_at', 'is', null)
      .execute(),
    db
      .selectFrom('auth_tokens')
      .select('id')
      .where('user_id', '=', userId)
      .where('active_workspace_id', '=', workspaceId)
      .where('revoked_at', 'is', null)
      .execute(),
  ]);
  return { keyIds: keys.map((row) => row.id), sessionIds: sessions.map((row) => row.id) };
}

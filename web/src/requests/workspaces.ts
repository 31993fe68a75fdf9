import type { WorkspaceRole } from '../../../src/sdk/types';
import { del, get, patch, post, put } from '../api';

/** A workspace as GET /api/v1/workspaces lists it: one the signed-in person belongs to. */
export interface Workspace {
  id: string;
  name: string | null;
  personal: boolean;
  role: WorkspaceRole;
  createdAt: string;
}

export interface Member {
  workspaceId: string;
  userId: string;
  email: string;
  role: WorkspaceRole;
}

const membersPath = (workspaceId: string) => `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/members`;

export const listWorkspaces = async (): Promise<Workspace[]> =>
  (await get<{ workspaces: Workspace[] }>('/api/v1/workspaces')).workspaces;

/** A team workspace, owned by the person who creates it. */
export const createWorkspace = (name: string) => post<Workspace>('/api/v1/workspaces', { name });

/** Moves the session into the workspace: every later request acts there. */
export const switchWorkspace = (workspaceId: string) => put('/api/v1/workspaces/current', { workspaceId });

export const listMembers = async (workspaceId: string): Promise<Member[]> =>
  (await get<{ members: Member[] }>(membersPath(workspaceId))).members;

/** Adds someone who already has an account, by the email they signed up with. */
export const addMember = (workspaceId: string, email: string, role: WorkspaceRole) =>
  post<Member>(membersPath(workspaceId), { email, role });

export const renameWorkspace = (workspaceId: string, name: string) =>
  patch<Workspace>(`/api/v1/workspaces/${encodeURIComponent(workspaceId)}`, { name });

export const changeRole = (workspaceId: string, userId: string, role: WorkspaceRole) =>
  patch<Member>(`${membersPath(workspaceId)}/${encodeURIComponent(userId)}`, { role });

/** Takes someone out of the workspace; the person's own id is leaving it. */
export const removeMember = (workspaceId: string, userId: string) =>
  del<{ success: boolean }>(`${membersPath(workspaceId)}/${encodeURIComponent(userId)}`);

import type { WorkspaceRole } from '../../../src/sdk/types';
import { del, get, post } from '../api';
import type { Workspace } from './workspaces';

/** An invitation not yet accepted or revoked, as its workspace's owners and admins see it. */
export interface Invitation {
  id: string;
  workspaceId: string;
  email: string;
  role: WorkspaceRole;
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
  status: 'pending' | 'expired';
}

/** What an invitation link offers, before it is accepted. */
export interface InvitationPreview {
  workspaceName: string;
  email: string;
  role: WorkspaceRole;
  invitedBy: string | null;
  expiresAt: string;
}

const invitationsPath = (workspaceId: string) => `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/invitations`;

export const listInvitations = async (workspaceId: string): Promise<Invitation[]> =>
  (await get<{ invitations: Invitation[] }>(invitationsPath(workspaceId))).invitations;

/** Mails the address a link to join; the server keeps only the link's hash. */
export const inviteByEmail = (workspaceId: string, email: string, role: WorkspaceRole) =>
  post<Invitation>(invitationsPath(workspaceId), { email, role });

/** Mails a new link (the old one stops working), good for the full time again. */
export const resendInvitation = (workspaceId: string, invitationId: string) =>
  post<Invitation>(`${invitationsPath(workspaceId)}/${encodeURIComponent(invitationId)}/resend`);

export const revokeInvitation = (workspaceId: string, invitationId: string) =>
  del<{ success: true }>(`${invitationsPath(workspaceId)}/${encodeURIComponent(invitationId)}`);

/** Public: the token stands in for the sign-in, to show what the link offers. */
export const previewInvitation = (token: string) => post<InvitationPreview>('/api/v1/invitations/preview', { token });

export const acceptInvitation = async (token: string): Promise<Workspace> =>
  (await post<{ workspace: Workspace }>('/api/v1/invitations/accept', { token })).workspace;

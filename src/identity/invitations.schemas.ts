import { Type } from 'typebox';
import { Timestamp, WorkspaceRoleSchema } from '../sdk/schemas/common.js';

export const InviteBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }), role: WorkspaceRoleSchema });
export const InvitationParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  invitationId: Type.String({ minLength: 1, maxLength: 100 }),
});
/** The token of an invitation link, sent in a body so it stays out of addresses and logs. */
export const InvitationTokenBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });

export const InvitationSchema = Type.Object({
  id: Type.String(),
  workspaceId: Type.String(),
  email: Type.String(),
  role: WorkspaceRoleSchema,
  invitedBy: Type.Union([Type.String(), Type.Null()]),
  createdAt: Timestamp,
  expiresAt: Timestamp,
  status: Type.Union([Type.Literal('pending'), Type.Literal('expired')]),
});
export const InvitationList = Type.Object({ invitations: Type.Array(InvitationSchema) });

export const InvitationPreviewSchema = Type.Object({
  workspaceName: Type.String(),
  email: Type.String(),
  role: WorkspaceRoleSchema,
  invitedBy: Type.Union([Type.String(), Type.Null()]),
  expiresAt: Timestamp,
});

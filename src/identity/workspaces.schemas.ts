import { Type } from 'typebox';
import { Timestamp, WorkspaceRoleSchema } from '../sdk/schemas/common.js';
import { WORKSPACE_NAME_MAX } from './workspaces.js';

export const WorkspaceSchema = Type.Object({
  id: Type.String(),
  name: Type.Union([Type.String(), Type.Null()]),
  personal: Type.Boolean(),
  role: WorkspaceRoleSchema,
  createdAt: Timestamp,
});

export const CreateWorkspaceBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: WORKSPACE_NAME_MAX }) });
export const RenameWorkspaceBody = CreateWorkspaceBody;
export const MemberParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  userId: Type.String({ minLength: 1, maxLength: 100 }),
});
export const ChangeRoleBody = Type.Object({ role: WorkspaceRoleSchema });
export const WorkspaceList = Type.Object({ workspaces: Type.Array(WorkspaceSchema) });
export const WorkspaceParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const AddMemberBody = Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }), role: WorkspaceRoleSchema });
export const MemberSchema = Type.Object({
  workspaceId: Type.String(),
  userId: Type.String(),
  email: Type.String(),
  role: WorkspaceRoleSchema,
});
export const SwitchWorkspaceBody = Type.Object({ workspaceId: Type.String({ minLength: 1, maxLength: 100 }) });
export const CurrentWorkspace = Type.Object({ workspace: WorkspaceSchema });

export const MemberList = Type.Object({ members: Type.Array(MemberSchema) });

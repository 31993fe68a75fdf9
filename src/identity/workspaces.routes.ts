import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { Success } from '../sdk/schemas/common.js';
import { callerOf } from './credentials.js';
import { changeMemberRole, removeMember, renameTeamWorkspace } from './members.js';
import { addMember, createTeamWorkspace, listWorkspaceMembers, listWorkspaces, switchWorkspace } from './workspaces.js';
import {
  AddMemberBody,
  ChangeRoleBody,
  CreateWorkspaceBody,
  CurrentWorkspace,
  MemberList,
  MemberParams,
  MemberSchema,
  RenameWorkspaceBody,
  SwitchWorkspaceBody,
  WorkspaceList,
  WorkspaceParams,
  WorkspaceSchema,
} from './workspaces.schemas.js';

export function workspaceRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/workspaces',
      { config: { auth: 'user' }, schema: { body: CreateWorkspaceBody, response: { 201: WorkspaceSchema } } },
      async (request, reply) => reply.status(201).send(await createTeamWorkspace(ctx, callerOf(request), request.body.name)),
    );

    app.get('/workspaces', { config: { auth: 'user' }, schema: { response: { 200: WorkspaceList } } }, async (request) => ({
      workspaces: await listWorkspaces(ctx, callerOf(request)),
    }));

    app.get(
      '/workspaces/:id/members',
      { config: { auth: 'user' }, schema: { params: WorkspaceParams, response: { 200: MemberList } } },
      async (request) => ({ members: await listWorkspaceMembers(ctx, callerOf(request), request.params.id) }),
    );

    app.post(
      '/workspaces/:id/members',
      {
        config: { auth: 'user' },
        schema: { params: WorkspaceParams, body: AddMemberBody, response: { 201: MemberSchema } },
      },
      async (request, reply) => reply.status(201).send(await addMember(ctx, callerOf(request), request.params.id, request.body)),
    );

    app.patch(
      '/workspaces/:id',
      {
        config: { auth: 'user' },
        schema: { params: WorkspaceParams, body: RenameWorkspaceBody, response: { 200: WorkspaceSchema } },
      },
      async (request) => renameTeamWorkspace(ctx, callerOf(request), request.params.id, request.body.name),
    );

    app.patch(
      '/workspaces/:id/members/:userId',
      { config: { auth: 'user' }, schema: { params: MemberParams, body: ChangeRoleBody, response: { 200: MemberSchema } } },
      async (request) => changeMemberRole(ctx, callerOf(request), request.params.id, request.params.userId, request.body.role),
    );

    app.delete(
      '/workspaces/:id/members/:userId',
      { config: { auth: 'user' }, schema: { params: MemberParams, response: { 200: Success } } },
      async (request) => {
        await removeMember(ctx, callerOf(request), request.params.id, request.params.userId);
        return { success: true as const };
      },
    );

    app.put(
      '/workspaces/current',
      { config: { auth: 'user' }, schema: { body: SwitchWorkspaceBody, response: { 200: CurrentWorkspace } } },
      async (request) => ({ workspace: await switchWorkspace(ctx, callerOf(request), request.body.workspaceId) }),
    );
  };
}

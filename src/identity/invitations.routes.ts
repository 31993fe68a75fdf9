import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { AppContext } from '../context.js';
import { Success } from '../sdk/schemas/common.js';
import { callerOf } from './credentials.js';
import { acceptInvitation, previewInvitation } from './invitation-links.js';
import { invite, listInvitations, resendInvitation, withdrawInvitation } from './invitations.js';
import {
  InvitationList,
  InvitationParams,
  InvitationPreviewSchema,
  InvitationSchema,
  InvitationTokenBody,
  InviteBody,
} from './invitations.schemas.js';
import { CurrentWorkspace, WorkspaceParams } from './workspaces.schemas.js';

/** Invitations to a team by email: made and managed by its owners and admins, accepted through the mailed link. */
export function invitationRoutes(ctx: AppContext): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.post(
      '/workspaces/:id/invitations',
      { config: { auth: 'user' }, schema: { params: WorkspaceParams, body: InviteBody, response: { 201: InvitationSchema } } },
      async (request, reply) => reply.status(201).send(await invite(ctx, callerOf(request), request.params.id, request.body)),
    );

    app.get(
      '/workspaces/:id/invitations',
      { config: { auth: 'user' }, schema: { params: WorkspaceParams, response: { 200: InvitationList } } },
      async (request) => ({ invitations: await listInvitations(ctx, callerOf(request), request.params.id) }),
    );

    app.post(
      '/workspaces/:id/invitations/:invitationId/resend',
      { config: { auth: 'user' }, schema: { params: InvitationParams, response: { 200: InvitationSchema } } },
      async (request) => resendInvitation(ctx, callerOf(request), request.params.id, request.params.invitationId),
    );

    app.delete(
      '/workspaces/:id/invitations/:invitationId',
      { config: { auth: 'user' }, schema: { params: InvitationParams, response: { 200: Success } } },
      async (request) => {
        await withdrawInvitation(ctx, callerOf(request), request.params.id, request.params.invitationId);
        return { success: true as const };
      },
    );

    app.post(
      '/invitations/preview',
      { config: { auth: 'public' }, schema: { body: InvitationTokenBody, response: { 200: InvitationPreviewSchema } } },
      async (request) => previewInvitation(ctx, request.body.token),
    );

    app.post(
      '/invitations/accept',
      { config: { auth: 'session' }, schema: { body: InvitationTokenBody, response: { 200: CurrentWorkspace } } },
      async (request) => ({ workspace: await acceptInvitation(ctx, callerOf(request), request.body.token) }),
    );
  };
}

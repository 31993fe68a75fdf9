import type { OperationReference } from '../http/operation-reference.js';

/*
 * What the API reference says of the workspace operations: workspaces, their members and
 * invitations (see identity.reference.ts for how these entries are read and checked).
 */

/** An invitation as the invitation operations answer it. */
const INVITATION = {
  id: '5b1f0e7a-3c4d-4e8f-9a2b-6c7d8e9f0a1b',
  workspaceId: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
  email: 'linus@example.com',
  role: 'member',
  invitedBy: 'ada@example.com',
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-08T00:00:00.000Z',
  status: 'pending',
};

/** The workspace the examples act in. */
export const WORKSPACE = 'b7c4e2d0-9a1f-4e3b-8c5d-2f6a0e9b1d37';

export const workspacesReference: OperationReference = {
  'POST /api/v1/workspaces': {
    doc: ['Workspaces', 'Create a team workspace', 'Creates a workspace with the caller as its owner.'],
    request: { name: 'Analytics team' },
    response: {
      id: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
      name: 'Analytics team',
      personal: false,
      role: 'owner',
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  },
  'GET /api/v1/workspaces': {
    doc: ['Workspaces', 'List your workspaces', 'The workspaces the caller belongs to, with their role in each.'],
    response: {
      workspaces: [
        {
          id: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
          name: null,
          personal: true,
          role: 'owner',
          createdAt: '2026-01-01T00:00:00.000Z',
        },
        {
          id: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
          name: 'Analytics team',
          personal: false,
          role: 'owner',
          createdAt: '2026-01-01T00:00:00.000Z',
        },
      ],
    },
  },
  'GET /api/v1/workspaces/{id}/members': {
    doc: ['Workspaces', 'List members', "A workspace's members and their roles; members of the workspace only."],
    response: {
      members: [
        {
          workspaceId: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
          userId: '60c4244f-54f1-414d-962d-f46da05b4219',
          email: 'ada@example.com',
          role: 'owner',
        },
        {
          workspaceId: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
          userId: '2d878494-8c6f-4bac-b894-206a888c15e5',
          email: 'grace@example.com',
          role: 'member',
        },
      ],
    },
  },
  'POST /api/v1/workspaces/{id}/members': {
    doc: [
      'Workspaces',
      'Add a member',
      'Adds an existing account by email with a role. Owners and admins only; only an owner adds an owner.',
    ],
    request: { email: 'grace@example.com', role: 'member' },
    response: {
      workspaceId: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
      userId: '2d878494-8c6f-4bac-b894-206a888c15e5',
      email: 'grace@example.com',
      role: 'member',
    },
  },
  'PATCH /api/v1/workspaces/{id}': {
    doc: ['Workspaces', 'Rename a workspace', 'A team workspace’s new name; owners and admins only.'],
    request: { name: 'Analytics and reporting' },
    response: {
      id: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
      name: 'Analytics and reporting',
      personal: false,
      role: 'owner',
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  },
  'PATCH /api/v1/workspaces/{id}/members/{userId}': {
    doc: [
      'Workspaces',
      'Change a member’s role',
      'Owner, admin or member. Only an owner changes owners, and a workspace always keeps one.',
    ],
    request: { role: 'admin' },
    response: {
      workspaceId: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
      userId: '2d878494-8c6f-4bac-b894-206a888c15e5',
      email: 'grace@example.com',
      role: 'admin',
    },
  },
  'DELETE /api/v1/workspaces/{id}/members/{userId}': {
    doc: [
      'Workspaces',
      'Remove a member, or leave',
      'Their keys for the workspace are revoked and their sessions return to their personal workspace. Anyone may remove themself, except the last owner.',
    ],
    response: {
      success: true,
    },
  },
  'POST /api/v1/workspaces/{id}/invitations': {
    doc: [
      'Workspaces',
      'Invite someone by email',
      'Mails the address a link to join the team with the role given; it works once, for INVITATION_TTL_DAYS (7 by default). Owners and admins only; only an owner invites an owner. Needs SMTP on the server. The token is never answered: it is only in the mail.',
    ],
    request: { email: 'linus@example.com', role: 'member' },
    response: INVITATION,
  },
  'GET /api/v1/workspaces/{id}/invitations': {
    doc: [
      'Workspaces',
      'List open invitations',
      'Invitations not yet accepted or revoked, the newest first; `status` is `expired` once the link no longer works. Owners and admins only.',
    ],
    response: {
      invitations: [INVITATION],
    },
  },
  'POST /api/v1/workspaces/{id}/invitations/{invitationId}/resend': {
    doc: [
      'Workspaces',
      'Resend an invitation',
      'Mails a new link, good for the full time again; the old link stops working. Limited to 20 invitation mails a workspace and 3 an address an hour.',
    ],
    response: INVITATION,
  },
  'DELETE /api/v1/workspaces/{id}/invitations/{invitationId}': {
    doc: ['Workspaces', 'Revoke an invitation', 'Its link stops working at once.'],
    response: { success: true },
  },
  'POST /api/v1/invitations/preview': {
    doc: [
      'Workspaces',
      'See what an invitation link offers',
      'Public: the token from the link stands in for a sign-in. Answers the team, the invited email and the role; 410 EXPIRED says in words whether the link was used, revoked or expired.',
    ],
    request: { token: 'sklt_invite_8Hc2Lq5Zt0Wm3Vb7Kx1Np4Rd9Sg6Fj2Ay5Te' },
    response: {
      workspaceName: 'Analytics team',
      email: 'linus@example.com',
      role: 'member',
      invitedBy: 'ada@example.com',
      expiresAt: '2026-01-08T00:00:00.000Z',
    },
  },
  'POST /api/v1/invitations/accept': {
    doc: [
      'Workspaces',
      'Accept an invitation',
      'Joins the team with the role invited, once. Needs a session (x-auth-token) of the account with the invited email.',
    ],
    request: { token: 'sklt_invite_8Hc2Lq5Zt0Wm3Vb7Kx1Np4Rd9Sg6Fj2Ay5Te' },
    response: {
      workspace: {
        id: 'ac9d9c51-f480-4676-aff2-6c49825f5e17',
        name: 'Analytics team',
        personal: false,
        role: 'member',
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    },
  },
  'PUT /api/v1/workspaces/current': {
    doc: [
      'Workspaces',
      'Switch the active workspace',
      'Moves an API key to another workspace its owner belongs to. Keys bound to a workspace at creation cannot move.',
    ],
    request: { workspaceId: WORKSPACE },
    response: {
      workspace: {
        id: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
        name: null,
        personal: true,
        role: 'owner',
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    },
  },
};

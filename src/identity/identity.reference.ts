import type { OperationReference } from '../http/operation-reference.js';

/*
 * What the API reference says of the account operations (signing up and in, sessions, API
 * keys): the group, a summary and a description, a request body to copy and an answer (most
 * taken from a real server's answers, with the addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

export const identityReference: OperationReference = {
  'POST /api/v1/auth/signup': {
    doc: [
      'Accounts',
      'Create an account',
      'Creates a person with an email and a password of at least 8 characters, and their personal workspace. Answers with a session token (x-auth-token) as sign-in does.',
    ],
    request: { email: 'ada@example.com', password: 'correct horse battery' },
    response: {
      token: 'sklt_sess_prRSaCWQqtj86iq8wB6OSTs5Myfm4ynK2CuAVZOe',
      user: {
        id: '60c4244f-54f1-414d-962d-f46da05b4219',
        email: 'ada@example.com',
        isAdmin: false,
        personalWorkspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    },
  },
  'POST /api/v1/auth/login': {
    doc: ['Accounts', 'Sign in', 'Exchanges an email and password for a session token to send as x-auth-token.'],
    request: { email: 'ada@example.com', password: 'correct horse battery' },
    response: {
      token: 'sklt_sess_rbuCYWs6LQDVd0ROM3rjzRcNFwcyXa7mwwixvHN9',
      user: {
        id: '60c4244f-54f1-414d-962d-f46da05b4219',
        email: 'ada@example.com',
        isAdmin: false,
        personalWorkspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
        createdAt: '2026-01-01T00:00:00.000Z',
      },
    },
  },
  'POST /api/v1/auth/logout': {
    doc: ['Accounts', 'Sign out', 'Ends the session the token belongs to; the token stops working at once.'],
    response: {
      success: true,
    },
  },
  'PUT /api/v1/auth/password': {
    doc: ['Account', 'Change your password', 'Needs the current password. Your other sessions end; API keys stay.'],
    request: { currentPassword: 'correct horse battery', newPassword: 'a longer passphrase now' },
    response: {
      success: true,
      endedSessions: 0,
    },
  },
  'POST /api/v1/auth/password-reset': {
    doc: [
      'Account',
      'Choose a new password with a reset link',
      'The token from a one-time link an operator made (`skillet users reset-password`). Every session ends.',
    ],
    request: {
      token: 'sklt_reset_4Qm9T2vXcK7pL1sN8dR3wY6bH0fJ5gZaEuVi',
      newPassword: 'a longer passphrase now',
    },
    response: {
      success: true,
    },
  },
  'POST /api/v1/auth/password-reset/request': {
    doc: [
      'Account',
      'Ask for a reset link by mail',
      'Mails a one-time link to the address if it has an account; the answer is the same either way. Needs SMTP on the server.',
    ],
    request: { email: 'ada@example.com' },
    response: {
      success: true,
    },
  },
  'GET /api/v1/auth/sessions': {
    doc: ['Account', 'List your sessions', 'Where you are signed in, newest first.'],
    response: {
      sessions: [
        {
          id: '80ed3c46-c278-48cc-9ec4-af3dc1f217be',
          workspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
          createdAt: '2026-01-01T00:00:00.000Z',
          expiresAt: '2026-01-31T00:00:00.000Z',
          current: false,
        },
        {
          id: '9b7dc968-d8d9-4989-991e-699ee27e1a4c',
          workspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
          createdAt: '2026-01-01T00:00:00.000Z',
          expiresAt: '2026-01-31T00:00:00.000Z',
          current: true,
        },
      ],
    },
  },
  'DELETE /api/v1/auth/sessions/{id}': {
    doc: ['Account', 'Sign a session out', 'Ends one of your sessions at once.'],
    response: {
      success: true,
    },
  },
  'GET /api/v1/me': {
    doc: ['Accounts', 'Who is calling', 'The person, the workspace the credential acts in, and the kind of credential used.'],
    response: {
      user: {
        id: '60c4244f-54f1-414d-962d-f46da05b4219',
        email: 'ada@example.com',
        isAdmin: false,
        personalWorkspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
        createdAt: '2026-01-01T00:00:00.000Z',
      },
      workspace: {
        id: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
        name: null,
        personal: true,
        role: 'owner',
      },
      credential: {
        type: 'session',
        id: '9b7dc968-d8d9-4989-991e-699ee27e1a4c',
      },
      tier: 'paygmode',
    },
  },
  'POST /api/v1/keys': {
    doc: [
      'API keys',
      'Create an API key',
      'Creates a key bound to the current workspace. Its plaintext is in this answer only; store it now. The number of keys depends on the plan.',
    ],
    request: { label: 'CI on main' },
    response: {
      id: 'd35cae94-10e9-4ef3-a7f6-2c6149f76f19',
      key: 'sklt_live_7WHY3NZwDseWDBaTwuuT8XCnIGVfCPrUM1QvNsHx',
      label: 'CI on main',
      keyPreview: 'sklt_live_7WHY...NsHx',
      workspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  },
  'GET /api/v1/keys': {
    doc: [
      'API keys',
      'List API keys',
      "The caller's keys with a preview, their workspace, when they were last used and their activity.",
    ],
    response: {
      keys: [
        {
          id: 'd35cae94-10e9-4ef3-a7f6-2c6149f76f19',
          label: 'CI on main',
          keyPreview: 'sklt_live_7WHY...NsHx',
          workspaceId: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
          createdAt: '2026-01-01T00:00:00.000Z',
          lastUsedAt: null,
          heartbeat: 'DORMANT',
        },
      ],
    },
  },
  'DELETE /api/v1/keys/{id}': {
    doc: [
      'API keys',
      'Revoke an API key',
      'Revokes the key at once. A signed-in person may revoke any of their keys; a key may revoke itself.',
    ],
    response: {
      success: true,
    },
  },
};

import type { OperationReference } from '../http/operation-reference.js';

/*
 * What the API reference says of the consent operations: the group, a summary and a description,
 * a request body to copy and an answer (most taken from a real server's answers, with the
 * addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

export const agentConnectReference: OperationReference = {
  'POST /api/v1/agents/connect': {
    doc: [
      'Agents',
      'Ask to narrow a key’s scopes',
      'Called with an API key: asks its owner to approve a smaller set of scopes for it. Answers a request to watch.',
    ],
    request: { scopes: ['read', 'write'], label: 'My coding agent' },
    response: {
      requestId: '820afa30-e80f-4b97-a21d-7c33133376f4',
      status: 'pending',
      approveUrl: 'https://skillet.example.com/agents/connect/820afa30-e80f-4b97-a21d-7c33133376f4',
      expiresAt: '2026-01-01T00:10:00.000Z',
    },
  },
  'GET /api/v1/agents/connect/{requestId}': {
    doc: ['Agents', 'Read a scope request', 'The scopes asked for and whether the owner has decided.'],
    response: {
      requestId: 'ec1e16b2-a845-4cca-bb93-3d3a71fe064e',
      status: 'pending',
      scopes: ['read', 'write'],
      label: 'My coding agent',
      keyLabel: 'CI on main',
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-01T00:10:00.000Z',
    },
  },
  'POST /api/v1/agents/connect/{requestId}/approve': {
    doc: ['Agents', 'Approve a scope request', 'The key keeps only the scopes asked for.'],
    response: {
      requestId: 'ec1e16b2-a845-4cca-bb93-3d3a71fe064e',
      status: 'approved',
      scopes: ['read', 'write'],
      label: 'My coding agent',
      keyLabel: 'CI on main',
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-01T00:10:00.000Z',
    },
  },
  'POST /api/v1/agents/connect/{requestId}/deny': {
    doc: ['Agents', 'Deny a scope request', 'The key keeps the scopes it had.'],
    response: {
      requestId: '820afa30-e80f-4b97-a21d-7c33133376f4',
      status: 'denied',
      scopes: ['read'],
      label: null,
      keyLabel: 'CI on main',
      createdAt: '2026-01-01T00:00:00.000Z',
      expiresAt: '2026-01-01T00:10:00.000Z',
    },
  },
};

import type { OperationReference } from '../http/operation-reference.js';

/*
 * What the API reference says of the activation operations: the group, a summary and a description,
 * a request body to copy and an answer (most taken from a real server's answers, with the
 * addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

export const activationReference: OperationReference = {
  'POST /api/v1/activate': {
    doc: [
      'Device activation',
      'Start a device activation',
      'For a CLI or agent without a browser: answers a device code to poll with and a user code the person approves in the app. Rate limited per client address.',
    ],
    response: {
      device_code: 'dc_Kq3v8ZLm2xR7tN1cW9pB4sYh',
      user_code: 'WDJB-MJHT',
      verification_url: 'https://skillet.example.com/app/activate',
      verification_url_complete: 'https://skillet.example.com/app/activate?code=WDJB-MJHT',
      app_download_url: 'https://skillet.example.com/app/',
      expires_in: 600,
      interval: 5,
    },
  },
  'POST /api/v1/activate/poll': {
    doc: [
      'Device activation',
      'Poll an activation',
      'Always 200 with a status. Only the one call that sees `approved` receives the API key; keep polling while `pending`, at the interval given.',
    ],
    request: { device_code: 'dc_7Yb2kQ9wLm4xR8tN1vC6zP3s' },
    response: {
      status: 'approved',
      api_key: 'sklt_live_o6McZB9wzkjAxiYLmbLWxcUYl8oZiq7dM4aXsFdW',
      tier: 'paygmode',
      workspace: {
        id: '92978cd8-57cf-4ea2-bb9c-4329405278ee',
        name: null,
      },
    },
  },
  'GET /api/v1/activate/lookup': {
    doc: [
      'Device activation',
      'Look up an activation code',
      'What a signed-in person sees before approving: the client that asked, from where, and the code’s state.',
    ],
    response: {
      user_code: 'X5PP-M63S',
      client_label: 'node',
      client_ua: 'node',
      client_ip: '127.0.0.1',
      status: 'pending',
      expires_at: '2026-01-01T00:10:00.000Z',
    },
  },
  'POST /api/v1/activate/confirm': {
    doc: [
      'Device activation',
      'Approve an activation',
      'Approves the code for the current workspace (or the one named by x-workspace-id, which the caller must belong to).',
    ],
    request: { code: 'WDJB-MJHT' },
    response: {
      success: true,
    },
  },
  'POST /api/v1/activate/deny': {
    doc: ['Device activation', 'Deny an activation', 'Refuses the code; the polling client is told `denied`.'],
    request: { code: 'WDJB-MJHT' },
    response: {
      success: true,
    },
  },
};

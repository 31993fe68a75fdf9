import type { OperationReference } from '../http/operation-reference.js';

/*
 * What the API reference says of the oauth operations: the group, a summary and a description,
 * a request body to copy and an answer (most taken from a real server's answers, with the
 * addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

export const connectedAppsReference: OperationReference = {
  'GET /api/v1/auth/connected-apps': {
    doc: [
      'Account',
      'List your connected apps',
      'Apps you allowed to act for you over OAuth, with the workspace and the access each holds.',
    ],
    response: {
      apps: [],
    },
  },
  'DELETE /api/v1/auth/connected-apps/{id}': {
    doc: ['Account', 'Disconnect an app', 'Every token the app holds stops working at once; it must ask you again to come back.'],
    response: {
      success: true,
    },
  },
};

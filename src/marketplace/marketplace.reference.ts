import type { OperationReference } from '../http/operation-reference.js';
import { INSTALLED_SKILL } from '../skills/skills.reference.js';

/*
 * What the API reference says of the marketplace operations: the group, a summary and a description,
 * a request body to copy and an answer (most taken from a real server's answers, with the
 * addresses made public-looking). The OpenAPI document reads them (http/openapi.ts), and
 * openapi-docs.test.ts checks each example against its route's schema.
 */

export const marketplaceReference: OperationReference = {
  'GET /api/v1/marketplace/skills': {
    doc: [
      'Skills',
      'List skills',
      'The skills the workspace can run, in slug order: this server’s (source server) and those installed into the workspace (source workspace), with their price, what input they take (a sentence, examples and, when declared, a schema) and a default input.',
    ],
    response: { items: [INSTALLED_SKILL], total: 33, limit: 1, offset: 20, hasMore: true },
  },
};

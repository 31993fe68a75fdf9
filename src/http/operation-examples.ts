import { documentPath } from './operation-docs.js';
import { FURTHER_STATUS_EXAMPLES, RESPONSE_EXAMPLES } from './operation-response-examples.js';

/**
 * A request body to copy for every operation that takes one, and an answer for every
 * operation (operation-response-examples.ts), for the OpenAPI document and the reference
 * page built from it. Keyed like operation-docs.ts; a test checks that every operation has
 * its examples and that each is valid against its route's schema.
 */

const WORKSPACE = 'b7c4e2d0-9a1f-4e3b-8c5d-2f6a0e9b1d37';

const REQUEST_EXAMPLES: Record<string, unknown> = {
  'POST /api/v1/auth/signup': { email: 'ada@example.com', password: 'correct horse battery' },
  'POST /api/v1/auth/login': { email: 'ada@example.com', password: 'correct horse battery' },
  'PUT /api/v1/auth/password': { currentPassword: 'correct horse battery', newPassword: 'a longer passphrase now' },
  'POST /api/v1/auth/password-reset': {
    token: 'sklt_reset_4Qm9T2vXcK7pL1sN8dR3wY6bH0fJ5gZaEuVi',
    newPassword: 'a longer passphrase now',
  },
  'POST /api/v1/auth/password-reset/request': { email: 'ada@example.com' },
  'POST /api/v1/workspaces': { name: 'Analytics team' },
  'POST /api/v1/workspaces/{id}/members': { email: 'grace@example.com', role: 'member' },
  'POST /api/v1/workspaces/{id}/invitations': { email: 'linus@example.com', role: 'member' },
  'POST /api/v1/invitations/preview': { token: 'sklt_invite_8Hc2Lq5Zt0Wm3Vb7Kx1Np4Rd9Sg6Fj2Ay5Te' },
  'POST /api/v1/invitations/accept': { token: 'sklt_invite_8Hc2Lq5Zt0Wm3Vb7Kx1Np4Rd9Sg6Fj2Ay5Te' },
  'PATCH /api/v1/workspaces/{id}': { name: 'Analytics and reporting' },
  'PATCH /api/v1/workspaces/{id}/members/{userId}': { role: 'admin' },
  'PUT /api/v1/workspaces/current': { workspaceId: WORKSPACE },
  'POST /api/v1/keys': { label: 'CI on main' },
  'POST /api/v1/activate/poll': { device_code: 'dc_7Yb2kQ9wLm4xR8tN1vC6zP3s' },
  'POST /api/v1/activate/confirm': { code: 'WDJB-MJHT' },
  'POST /api/v1/activate/deny': { code: 'WDJB-MJHT' },
  'POST /api/v1/agents/connect': { scopes: ['read', 'write'], label: 'My coding agent' },
  'POST /api/v1/skills': {
    folderName: 'word-counter',
    slug: 'my-word-counter',
    files: [
      {
        path: 'SKILL.md',
        content: Buffer.from(
          '---\nname: Word counter\ndescription: Counts the words of its input.\nruntime: script\nentry: main.mjs\n---\n',
        ).toString('base64'),
      },
      { path: 'main.mjs', content: Buffer.from("console.log('words');\n").toString('base64') },
    ],
  },
  'PUT /api/v1/skills/{slug}': {
    folderName: 'word-counter',
    files: [
      {
        path: 'SKILL.md',
        content: Buffer.from(
          '---\nname: Word counter\ndescription: Counts the words and lines of its input.\nruntime: script\nentry: main.mjs\n---\n',
        ).toString('base64'),
      },
      { path: 'main.mjs', content: Buffer.from("console.log('words and lines');\n").toString('base64') },
    ],
  },
  'POST /api/v1/executions': { skill_slug: 'ticker', input: '5 300', interface: 'api' },
  'POST /api/v1/runs': { skill_slug: 'ticker', input: '3 10' },
  'POST /api/v1/executions/{executionId}/events': {
    events: [{ type: 'user.message', content: [{ type: 'text', text: '5 300' }] }],
  },
  'POST /api/v1/executions/{executionId}/rerun': { input: '10 200' },
  'POST /api/v1/agents/{agentId}/subscribe-thread': { resourceId: WORKSPACE, threadId: 'weekly-report' },
  'POST /api/v1/agents/{agentId}/send-message': {
    resourceId: WORKSPACE,
    threadId: 'weekly-report',
    message: 'Summarise this week’s sales CSV as a chart.',
  },
  'POST /api/v1/chat/{agentId}': { message: 'Which skills can make a PDF?' },
  'POST /api/v1/agents/{agentId}/threads/{threadId}/approvals/{approvalId}': { approved: true },
  'POST /api/v1/billing/purchase': {
    packId: 'pack_500',
    email: 'ada@example.com',
    successUrl: 'https://skillet.example.com/app/billing?checkout=success',
    cancelUrl: 'https://skillet.example.com/app/billing?checkout=cancel',
  },
  'POST /api/v1/billing/subscribe': {
    email: 'ada@example.com',
    successUrl: 'https://skillet.example.com/app/billing?checkout=success',
    cancelUrl: 'https://skillet.example.com/app/billing?checkout=cancel',
  },
  'PUT /api/v1/byok': { key: 'sk-ant-api03-yourOwnKeyGoesHere' },
  'POST /api/v1/webhooks': {
    url: 'https://hooks.example.com/skillet',
    events: ['execution.completed', 'execution.failed'],
    description: 'Tell the build bot when runs end',
  },
  'PATCH /api/v1/webhooks/{id}': { enabled: false },
};

/** The example body of an operation, by method and route URL. */
export function requestExample(method: string, url: string): unknown {
  return REQUEST_EXAMPLES[`${method} ${documentPath(url)}`];
}

/** The example answer of an operation (its 2xx JSON answer), by method and route URL. */
export function responseExample(method: string, url: string): unknown {
  return RESPONSE_EXAMPLES[`${method} ${documentPath(url)}`];
}

/** The examples of an operation's further success statuses (after its first), by status. */
export function furtherStatusExamples(method: string, url: string): Record<string, unknown> {
  return FURTHER_STATUS_EXAMPLES[`${method} ${documentPath(url)}`] ?? {};
}

/** Every operation a request example is written for, for the test that holds the lists together. */
export const requestExampled = (): string[] => Object.keys(REQUEST_EXAMPLES);

/** Every operation an answer example is written for. */
export const responseExampled = (): string[] => Object.keys(RESPONSE_EXAMPLES);

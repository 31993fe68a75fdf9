import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import type { OpenAPIV3 } from 'openapi-types';
import type { ReferenceBook } from './operation-reference.js';
import type { AuthPolicy, ErrorFamily } from './route-config.js';

/**
 * The OpenAPI document's shared parts, added to each route from its config rather than
 * repeated in every route's schema: who may call it (security), the headers every
 * authenticated route reads, the error bodies of its family, and the stream route, which
 * is served ahead of Fastify and so is not among its routes.
 */

const ERROR_SCHEMAS: Record<string, OpenAPIV3.SchemaObject> = {
  Error: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: { code: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
  RateLimitError: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['type', 'message'],
        properties: { type: { type: 'string', enum: ['rate_limit_error'] }, message: { type: 'string' } },
      },
    },
  },
  ExecutionRunningError: {
    type: 'object',
    required: ['error', 'message'],
    properties: { error: { type: 'string', enum: ['EXECUTION_RUNNING'] }, message: { type: 'string' } },
  },
  ArtifactError: {
    type: 'object',
    required: ['error', 'isRunning'],
    properties: { error: { type: 'string' }, isRunning: { type: 'boolean' } },
  },
};

const SECURITY_SCHEMES: Record<string, OpenAPIV3.SecuritySchemeObject> = {
  apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'A workspace-bound API key (sklt_live_…).' },
  authToken: { type: 'apiKey', in: 'header', name: 'x-auth-token', description: "A signed-in person's session token." },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description:
      'An OAuth access token from this server (/oauth/token), for the resource being called: <PUBLIC_URL>/api/v1 here, <PUBLIC_URL>/mcp on /mcp.',
  },
};

const SECURITY: Record<AuthPolicy, Record<string, string[]>[]> = {
  public: [],
  user: [{ apiKey: [] }, { authToken: [] }, { bearer: [] }],
  session: [{ authToken: [] }],
};

const WORKSPACE_HEADER = {
  type: 'string',
  format: 'uuid',
  description: 'The workspace to act in; a session may name any workspace its person belongs to, a key only its own.',
};
const IDEMPOTENCY_HEADER = {
  type: 'string',
  maxLength: 200,
  description: 'Repeating a creation with the same key and body within 24 hours returns the first result.',
};

const PREFER_HEADER = {
  type: 'string',
  description:
    'wait (or wait=N seconds, at most 60): hold the answer until the run ends, 201 with its result, or 202 with where it stands when the time runs out. Preference-Applied says the wait used.',
};

const json = (ref: 'Error' | 'RateLimitError' | 'ExecutionRunningError' | 'ArtifactError') => ({
  $ref: `#/components/schemas/${ref}`,
});
const binary = { type: 'string', format: 'binary' };

function errorResponses(family: ErrorFamily) {
  const usual = family === 'artifact' ? json('ArtifactError') : json('Error');
  // The artifact family says a run is in progress in its own shape, with isRunning true.
  const running = family === 'artifact' ? json('ArtifactError') : json('ExecutionRunningError');
  return {
    '4XX': { description: 'Refused', content: { 'application/json': { schema: usual } } },
    '429': {
      description:
        'Over a rate limit (Retry-After says when to retry), a run already in progress, or (in the usual shape, code TOO_MANY_AT_ONCE) more thread replies under way than one person may have',
      content: {
        'application/json': {
          schema: { oneOf: family === 'artifact' ? [json('RateLimitError'), running] : [json('RateLimitError'), running, usual] },
        },
      },
    },
    '5XX': { description: 'Server failure', content: { 'application/json': { schema: usual } } },
  };
}

/** The binary answers: what they carry is decided by the stored file, not by JSON. */
const BINARY_RESPONSES: Record<string, object> = {
  '/api/v1/artifacts/:artifactId/download': {
    description: 'The artifact: a ZIP for a bundle, else its one file, as an attachment',
    content: { 'application/zip': { schema: binary }, 'application/octet-stream': { schema: binary } },
  },
  '/api/v1/artifacts/:artifactId/raw': {
    description: "The artifact's main file, with its own content type",
    content: { '*/*': { schema: binary } },
  },
  '/api/v1/artifacts/:artifactId/file/*': {
    description: 'One file of a bundle, with the content type of its extension',
    content: { '*/*': { schema: binary } },
  },
  '/api/v1/previews/*': {
    description: 'One file of a bundle through a preview link, with the content type of its extension',
    content: { '*/*': { schema: binary } },
  },
};

const STREAM_PATH = {
  get: {
    summary: "An execution's events as server-sent events",
    description:
      'Opened with the signed URL a created execution carries (no other credential). Replays every stored event after `lastSeq` (or `Last-Event-ID`), then delivers live ones.',
    parameters: [
      { name: 'executionId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
      { name: 'ts', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'sig', in: 'query', required: true, schema: { type: 'string' } },
      { name: 'lastSeq', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
      { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'integer', minimum: 0 } },
    ],
    responses: {
      '200': { description: 'The event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } },
      ...errorResponses('standard'),
    },
  },
};

interface DocumentedSchema extends FastifySchema {
  hide?: boolean;
  security?: Record<string, string[]>[];
}

/** The answers of a route, the success among them carrying the example (on a copy: the schema also serializes answers). */
function withAnswerExample(
  responses: Record<string, object> | undefined,
  example: unknown,
  further: Record<string, unknown>,
): Record<string, object> | undefined {
  if (!responses || example === undefined) return responses;
  const success = Object.keys(responses).find((status) => status.startsWith('2'));
  if (!success) return responses;
  const examples = { [success]: example, ...further };
  return Object.fromEntries(
    Object.entries(responses).map(([status, answer]) => [
      status,
      examples[status] === undefined ? answer : { ...answer, examples: [examples[status]] },
    ]),
  );
}

/**
 * The reference's opening (Swagger UI shows it as Markdown above the operations): what the
 * API is, how a caller proves who it is, and the way back to the guide, which a newcomer
 * needs before any one operation.
 */
const INTRODUCTION = `Skillet runs skills for people and their agents: create an execution, start it, and follow its events live. New here? Read [Getting started](/docs) first (keys, a first run, streaming, errors and Ds), and [Writing a skill](/docs/writing-skills) to make your own.

Answers are JSON; a refusal is \`{"error": {"code", "message"}}\` with a message in words ([Errors](/docs#errors) lists the codes).

## Authentication

Each operation lists what it takes (the lock beside it). Send one of:

- **\`x-api-key: sklt_live_…\`**: an API key. It acts in the workspace it was made for. Get one with \`skillet login\` (device activation) or on the app's Keys page ([how](/docs#get-an-api-key)).
- **\`x-auth-token: …\`**: a signed-in person's session token, from \`POST /api/v1/auth/login\`. With it, \`x-workspace-id\` chooses which of their workspaces to act in.
- **\`Authorization: Bearer …\`**: an OAuth access token issued by this server (\`/oauth/token\`) to an app a person connected, for this API's address, limited to the scopes they granted.

A missing or revoked credential is a 401; a credential that may not do what was asked is a 403. The event stream of a run takes neither: it is opened with the signed address that \`GET /api/v1/executions/{executionId}/stream-token\` gives.`;

export function openApiOptions(publicUrl: string, reference: ReferenceBook): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      info: { title: 'Skillet API', version: '1', description: INTRODUCTION },
      servers: [{ url: publicUrl }],
      components: { securitySchemes: SECURITY_SCHEMES, schemas: ERROR_SCHEMAS },
    },
    transform: ({ schema, url, route }) => {
      const documented = (schema ?? {}) as DocumentedSchema;
      if (documented.hide) return { schema: documented, url };
      const auth = route.config?.auth;
      const headers: Record<string, object> = {};
      if (auth === 'user' || auth === 'session') headers['x-workspace-id'] = WORKSPACE_HEADER;
      if (route.method === 'POST' && (url === '/api/v1/executions' || url === '/api/v1/runs')) {
        headers['Idempotency-Key'] = IDEMPOTENCY_HEADER;
      }
      if (route.method === 'POST' && url === '/api/v1/runs') headers.Prefer = PREFER_HEADER;
      const binaryAnswer = BINARY_RESPONSES[url];
      const responses = {
        ...withAnswerExample(
          documented.response as Record<string, object> | undefined,
          reference.responseExample(route.method as string, url),
          reference.furtherStatusExamples(route.method as string, url),
        ),
        ...(binaryAnswer ? { 200: binaryAnswer } : {}),
        ...errorResponses(route.config?.errorFamily ?? 'standard'),
      };
      const withHeaders = Object.keys(headers).length
        ? { headers: { type: 'object', properties: { ...headers }, ...(documented.headers as object | undefined) } }
        : {};
      const doc = reference.doc(route.method as string, url);
      const words = doc ? { summary: doc.summary, description: doc.description, tags: [doc.tag] } : {};
      // A copy carries the example: the schema itself is also what requests are validated with.
      const example = reference.requestExample(route.method as string, url);
      const body =
        example !== undefined && documented.body ? { body: { ...(documented.body as object), examples: [example] } } : {};
      return {
        schema: {
          ...documented,
          ...body,
          ...words,
          ...withHeaders,
          response: responses,
          security: auth ? SECURITY[auth] : [],
        },
        url,
      };
    },
    transformObject: (document) => {
      const openapi = 'openapiObject' in document ? document.openapiObject : {};
      return { ...openapi, paths: { ...openapi.paths, '/executions/{executionId}/stream': STREAM_PATH } };
    },
  };
}

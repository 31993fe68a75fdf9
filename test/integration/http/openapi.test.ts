import { describe, expect } from 'vitest';
import { withServer } from '../../helpers/fixtures.js';

interface Operation {
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, unknown> }>;
}
interface Document {
  components: {
    securitySchemes: Record<string, { type: string; name?: string; scheme?: string }>;
    schemas: Record<string, unknown>;
  };
  paths: Record<string, Record<string, Operation>>;
}

const it = withServer()
  .extend('document', { scope: 'file' }, async ({ api }) => (await api.get<Document>('/openapi.json')).body)
  // One operation of the document, by path and method.
  .extend('operation', { scope: 'file' }, ({ document }) => (path: string, method: string): Operation => {
    const found = document.paths[path]?.[method];
    if (!found) throw new Error(`${method} ${path} is not documented`);
    return found;
  });

const headerNames = (op: Operation) => (op.parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);

describe('the OpenAPI document', () => {
  it('names the three credentials, and each route says which it takes', ({ document, operation }) => {
    expect(document.components.securitySchemes).toMatchObject({
      apiKey: { type: 'apiKey', name: 'x-api-key' },
      authToken: { type: 'apiKey', name: 'x-auth-token' },
      bearer: { type: 'http', scheme: 'bearer' },
    });
    expect(operation('/api/v1/me', 'get').security).toEqual([{ apiKey: [] }, { authToken: [] }, { bearer: [] }]);
    expect(operation('/api/v1/keys', 'post').security).toEqual([{ authToken: [] }]);
    expect(operation('/api/v1/auth/login', 'post').security).toEqual([]);
  });

  it('lists the workspace header on authenticated routes and the idempotency key where it counts', ({ operation }) => {
    expect(headerNames(operation('/api/v1/me', 'get'))).toContain('x-workspace-id');
    expect(headerNames(operation('/api/v1/auth/login', 'post'))).not.toContain('x-workspace-id');
    expect(headerNames(operation('/api/v1/executions', 'post'))).toContain('Idempotency-Key');
  });

  it("describes each family's error bodies and the binary answers", ({ document, operation }) => {
    const errorRef = (op: Operation) => JSON.stringify(op.responses['4XX']?.content);
    expect(errorRef(operation('/api/v1/me', 'get'))).toContain('#/components/schemas/Error');
    expect(errorRef(operation('/api/v1/artifacts/{artifactId}/raw', 'get'))).toContain('#/components/schemas/ArtifactError');
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(['Error', 'RateLimitError', 'ExecutionRunningError', 'ArtifactError']),
    );
    expect(Object.keys(operation('/api/v1/artifacts/{artifactId}/download', 'get').responses['200']?.content ?? {})).toContain(
      'application/zip',
    );
    expect(operation('/api/v1/artifacts/{artifactId}/file/{*}', 'get').responses['200']?.content).toHaveProperty('*/*');
  });

  it('documents the event stream, which is served ahead of the router', ({ operation }) => {
    const stream = operation('/executions/{executionId}/stream', 'get');
    expect(Object.keys(stream.responses['200']?.content ?? {})).toEqual(['text/event-stream']);
    expect((stream.parameters ?? []).map((p) => p.name)).toEqual(['executionId', 'ts', 'sig', 'lastSeq', 'Last-Event-ID']);
  });
});

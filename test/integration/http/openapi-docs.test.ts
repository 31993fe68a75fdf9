import Value from 'typebox/value';
import { describe, expect } from 'vitest';
import { documentedOperations } from '../../../src/http/operation-docs.js';
import { exampledOperations } from '../../../src/http/operation-examples.js';
import { withApp } from '../../helpers/fixtures.js';

const it = withApp();

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content: Record<string, { schema: object; example?: unknown }> };
}

describe('the API reference', () => {
  it('says what every operation does, and documents no operation that does not exist', async ({ api }) => {
    const document = await api.get<{ paths: Record<string, Record<string, Operation>> }>('/openapi.json');
    expect(document.status).toBe(200);
    const operations = Object.entries(document.body.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation })),
    );
    // The stream is served ahead of Fastify and documented by hand.
    const routed = operations.filter(({ key }) => key !== 'GET /executions/{executionId}/stream');
    for (const { key, operation } of routed) {
      expect(operation.summary, key).toMatch(/^[A-Z].{3,60}$/);
      expect(operation.description?.length ?? 0, key).toBeGreaterThan(20);
      expect(operation.tags, key).toHaveLength(1);
    }
    expect(documentedOperations().sort()).toEqual(routed.map(({ key }) => key).sort());
  });

  it('gives every JSON body an example to copy, and each passes the route’s own schema', async ({ api }) => {
    const document = await api.get<{ paths: Record<string, Record<string, Operation>> }>('/openapi.json');
    const withBodies = Object.entries(document.body.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, operation]) => {
        const json = operation.requestBody?.content['application/json'];
        return json ? [{ key: `${method.toUpperCase()} ${path}`, json }] : [];
      }),
    );
    expect(withBodies.length).toBeGreaterThan(20);
    for (const { key, json } of withBodies) {
      expect(json.example, key).toBeDefined();
      expect(
        Value.Check(json.schema, json.example),
        `${key}: ${JSON.stringify([...Value.Errors(json.schema, json.example)])}`,
      ).toBe(true);
    }
    expect(exampledOperations().sort()).toEqual(withBodies.map(({ key }) => key).sort());
  });
});

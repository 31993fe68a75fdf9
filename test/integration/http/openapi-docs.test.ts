import Value from 'typebox/value';
import { describe, expect } from 'vitest';
import { API_REFERENCE } from '../../../src/api-reference.js';
import { withApp } from '../../helpers/fixtures.js';

const it = withApp();

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content: Record<string, { schema: object; example?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema: object; example?: unknown }> }>;
}

/** An OpenAPI 3.0 schema as plain JSON Schema: its `nullable: true` becomes "or null". */
function jsonSchemaOf(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(jsonSchemaOf);
  if (typeof schema !== 'object' || schema === null) return schema;
  const { nullable, ...rest } = schema as Record<string, unknown>;
  const converted = Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, jsonSchemaOf(value)]));
  return nullable === true ? { anyOf: [converted, { type: 'null' }] } : converted;
}

/** Whether an example fits its schema, and if not, what the checker said. */
function fits(schema: object, example: unknown): { fits: boolean; errors: string } {
  const checked = jsonSchemaOf(schema) as object;
  return { fits: Value.Check(checked, example), errors: JSON.stringify([...Value.Errors(checked, example)]) };
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
    expect(API_REFERENCE.documented().sort()).toEqual(routed.map(({ key }) => key).sort());
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
      const checked = fits(json.schema, json.example);
      expect(checked.fits, `${key}: ${checked.errors}`).toBe(true);
    }
    expect(API_REFERENCE.requestExampled().sort()).toEqual(withBodies.map(({ key }) => key).sort());
  });

  it('shows what every JSON answer looks like, and each example passes the answer’s schema', async ({ api }) => {
    const document = await api.get<{ paths: Record<string, Record<string, Operation>> }>('/openapi.json');
    const answers = Object.entries(document.body.paths).flatMap(([path, methods]) =>
      Object.entries(methods).flatMap(([method, operation]) =>
        Object.entries(operation.responses ?? {})
          .filter(([status]) => status.startsWith('2'))
          .flatMap(([, answer]) => {
            const json = answer.content?.['application/json'];
            return json ? [{ key: `${method.toUpperCase()} ${path}`, json }] : [];
          }),
      ),
    );
    expect(answers.length).toBeGreaterThan(70);
    for (const { key, json } of answers) {
      expect(json.example, key).toBeDefined();
      const checked = fits(json.schema, json.example);
      expect(checked.fits, `${key}: ${checked.errors}`).toBe(true);
    }
    // An operation with two success answers (POST /runs: 201 and 202) is one entry there.
    expect(API_REFERENCE.responseExampled().sort()).toEqual([...new Set(answers.map(({ key }) => key))].sort());
  });
});

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/paths.js';
import { checkInputSchema, InputSchemaError, inputProblem } from '../../src/skills/input-contract.js';
import { ManifestError, parseSkillManifest } from '../../src/skills/manifest.js';

const ticker = parseSkillManifest(readFileSync(path.join(PROJECT_ROOT, 'skills/ticker/SKILL.md'), 'utf8'), 'ticker');

const manifest = (frontMatter: string) =>
  parseSkillManifest(`---\nname: T\ndescription: A test skill.\n${frontMatter}\n---\nDo it.\n`, 't');

describe("ticker's declared input", () => {
  it('takes two whole numbers in range, and nothing else', () => {
    const schema = ticker.inputSchema;
    expect(schema).not.toBeNull();
    if (schema === null) return;
    for (const fits of ['10 500', ' 3  4 ', '10000 60000', '1 0', ...ticker.inputExamples]) {
      expect(inputProblem(schema, fits), fits).toBeUndefined();
    }
    for (const refused of ['hello world', '99999 1', '0 5', '10000 60001', '1 1 extra', '5', '-1 5', '1.5 2', '']) {
      expect(inputProblem(schema, refused), refused).toBeDefined();
    }
    expect(ticker.inputInvalid).toContain('Give two whole numbers');
  });
});

describe('object inputs', () => {
  const schema = checkInputSchema({
    type: 'object',
    properties: {
      city: { type: 'string', title: 'City', maxLength: 20 },
      days: { type: 'integer', title: 'Days', minimum: 1, maximum: 14 },
      units: { type: 'string', enum: ['metric', 'imperial'] },
      alerts: { type: 'boolean' },
    },
    required: ['city'],
  });

  it('takes a JSON object whose fields keep their rules', () => {
    expect(inputProblem(schema, '{"city":"Lisbon","days":3,"units":"metric","alerts":true}')).toBeUndefined();
    expect(inputProblem(schema, '{"city":"Porto"}')).toBeUndefined();
  });

  it('says what is wrong with each field, by its title, in sentences', () => {
    expect(inputProblem(schema, 'Lisbon')).toBe(
      'The input must be a JSON object with the fields “City”, “Days”, “units”, “alerts”.',
    );
    expect(inputProblem(schema, '{"days":0}')).toBe('“City” is missing; “Days” must be a whole number from 1 to 14.');
    expect(inputProblem(schema, '{"city":"x","units":"kelvin","alerts":"yes"}')).toBe(
      '“units” must be one of “metric”, “imperial”; “alerts” must be yes or no (true or false).',
    );
    expect(inputProblem(schema, '{"city":"x","extra":1}')).toContain('“extra” is not one of its fields');
    expect(inputProblem(schema, '{"city":"a very long city name indeed"}')).toBe(
      '“City” must be a text of at most 20 characters.',
    );
  });
});

describe('hostile schemas (skills are untrusted)', () => {
  it('runs a catastrophic pattern in linear time on a long input', () => {
    const schema = checkInputSchema({ type: 'string', pattern: '^(a+)+$' });
    const started = performance.now();
    expect(inputProblem(schema, `${'a'.repeat(100_000)}b`)).toBeDefined();
    // Backtracking would take longer than the universe has; linear time takes milliseconds.
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('refuses patterns that need backtracking, and over-long ones', () => {
    expect(() => checkInputSchema({ type: 'string', pattern: '(a)\\1' })).toThrow(InputSchemaError);
    expect(() => checkInputSchema({ type: 'string', pattern: '(?=a)a' })).toThrow(InputSchemaError);
    expect(() => checkInputSchema({ type: 'string', pattern: 'a'.repeat(301) })).toThrow(InputSchemaError);
    expect(() => checkInputSchema({ type: 'string', pattern: '(' })).toThrow(InputSchemaError);
  });

  it('refuses keywords it does not check, odd types, and oversized objects', () => {
    for (const schema of [
      { type: 'string', $ref: 'http://example.com/schema' },
      { type: 'string', format: 'email' },
      { type: 'array' },
      { type: 'object', properties: {} },
      { type: 'object', properties: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`f${i}`, { type: 'string' }])) },
      { type: 'object', properties: { 'a b': { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] },
      { type: 'object', properties: { a: { type: 'object' } } },
      { type: 'object', properties: { a: { type: 'string', enum: [] } } },
      { type: 'string', minimum: 'one' },
      'string',
      null,
    ]) {
      expect(() => checkInputSchema(schema), JSON.stringify(schema)).toThrow(InputSchemaError);
    }
  });

  it('a manifest whose examples or default do not fit its own schema is refused', () => {
    expect(() => manifest('input-schema: {type: string, maxLength: 3}\ninput-examples: ["long one"]')).toThrow(ManifestError);
    expect(() => manifest('input-schema: {type: string, maxLength: 3}\ndefault-input: "long one"')).toThrow(ManifestError);
    expect(() => manifest('input-examples: "one"')).toThrow(ManifestError);
    expect(() => manifest(`input-examples: [${Array.from({ length: 6 }, () => '"x"').join(', ')}]`)).toThrow(ManifestError);
    expect(manifest('input-examples: ["abc"]\ninput-schema: {type: string, maxLength: 3}').inputExamples).toEqual(['abc']);
  });
});

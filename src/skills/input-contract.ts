import v8 from 'node:v8';
import type { FieldSchema, InputSchema } from '../ports/skills.js';

/*
 * A skill's declared input (front matter `input-schema`), in the small part of JSON Schema
 * a form can be built from. The schema is the author's and so untrusted: every keyword is
 * checked here, and patterns run on V8's linear-time engine, so no pattern can stall the
 * server on a long input.
 */

export class InputSchemaError extends Error {}

// The `l` flag (linear time, no backtracking) exists behind this flag on Node 20 to 24.
v8.setFlagsFromString('--enable-experimental-regexp-engine');

const PATTERN_MAX_CHARS = 300;
const FIELDS_MAX = 20;
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;
const FIELD_KEYS = new Set(['type', 'title', 'description', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern']);
const OBJECT_KEYS = new Set(['type', 'title', 'description', 'properties', 'required']);

function linearPattern(source: unknown, where: string): RegExp {
  if (typeof source !== 'string' || source.length > PATTERN_MAX_CHARS) {
    throw new InputSchemaError(`${where}.pattern must be a regular expression of at most ${PATTERN_MAX_CHARS} characters`);
  }
  try {
    return new RegExp(source, 'l');
  } catch {
    throw new InputSchemaError(`${where}.pattern must be a regular expression without back-references or look-arounds`);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkField(value: unknown, where: string): FieldSchema {
  if (!isRecord(value)) throw new InputSchemaError(`${where} must be a mapping`);
  for (const key of Object.keys(value)) if (!FIELD_KEYS.has(key)) throw new InputSchemaError(`${where}.${key} is not supported`);
  if (!['string', 'integer', 'number', 'boolean'].includes(value.type as string)) {
    throw new InputSchemaError(`${where}.type must be string, integer, number or boolean`);
  }
  for (const key of ['title', 'description'] as const) {
    if (value[key] !== undefined && (typeof value[key] !== 'string' || value[key].length > 500)) {
      throw new InputSchemaError(`${where}.${key} must be a text of at most 500 characters`);
    }
  }
  for (const key of ['minimum', 'maximum', 'minLength', 'maxLength'] as const) {
    if (value[key] !== undefined && !Number.isFinite(value[key])) throw new InputSchemaError(`${where}.${key} must be a number`);
  }
  if (value.enum !== undefined) {
    const choices = value.enum;
    if (!Array.isArray(choices) || choices.length === 0 || choices.length > 50) {
      throw new InputSchemaError(`${where}.enum must list 1 to 50 choices`);
    }
    if (!choices.every((choice) => typeof choice === 'string' || typeof choice === 'number')) {
      throw new InputSchemaError(`${where}.enum must list texts or numbers`);
    }
  }
  if (value.pattern !== undefined) linearPattern(value.pattern, where);
  return value as FieldSchema;
}

/** The schema as written, checked; throws InputSchemaError naming what is wrong. */
export function checkInputSchema(value: unknown): InputSchema {
  if (!isRecord(value)) throw new InputSchemaError('input-schema must be a mapping');
  if (value.type !== 'object') return checkField(value, 'input-schema') as InputSchema;
  for (const key of Object.keys(value)) {
    if (!OBJECT_KEYS.has(key)) throw new InputSchemaError(`input-schema.${key} is not supported`);
  }
  const properties = value.properties;
  if (!isRecord(properties) || Object.keys(properties).length === 0 || Object.keys(properties).length > FIELDS_MAX) {
    throw new InputSchemaError(`input-schema.properties must name 1 to ${FIELDS_MAX} fields`);
  }
  for (const [name, field] of Object.entries(properties)) {
    if (!FIELD_NAME.test(name)) throw new InputSchemaError(`input-schema field "${name.slice(0, 64)}" needs a plain name`);
    checkField(field, `input-schema.properties.${name}`);
  }
  const required = value.required ?? [];
  if (!Array.isArray(required) || !required.every((name) => typeof name === 'string' && name in properties)) {
    throw new InputSchemaError('input-schema.required must list fields it names');
  }
  return value as InputSchema;
}

const count = (value: number) => value.toLocaleString('en-US');

/** What a field must be, as a person reads it ("a whole number from 1 to 10,000"). */
function fieldRule(field: FieldSchema): string {
  if (field.enum) return `one of ${field.enum.map((choice) => `“${choice}”`).join(', ')}`;
  const { minimum: min, maximum: max } = field;
  const range =
    min !== undefined && max !== undefined
      ? ` from ${count(min)} to ${count(max)}`
      : min !== undefined
        ? ` of at least ${count(min)}`
        : max !== undefined
          ? ` of at most ${count(max)}`
          : '';
  switch (field.type) {
    case 'integer':
      return `a whole number${range}`;
    case 'number':
      return `a number${range}`;
    case 'boolean':
      return 'yes or no (true or false)';
    default:
      if (field.maxLength !== undefined) return `a text of at most ${count(field.maxLength)} characters`;
      if (field.minLength !== undefined) return `a text of at least ${count(field.minLength)} characters`;
      return 'a text in the form the skill describes';
  }
}

function fieldFits(field: FieldSchema, value: unknown): boolean {
  if (field.enum) return field.enum.includes(value as string | number);
  switch (field.type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return false;
      if (field.type === 'integer' && !Number.isInteger(value)) return false;
      return (field.minimum === undefined || value >= field.minimum) && (field.maximum === undefined || value <= field.maximum);
    }
    default: {
      if (typeof value !== 'string') return false;
      const length = [...value].length;
      if (field.minLength !== undefined && length < field.minLength) return false;
      if (field.maxLength !== undefined && length > field.maxLength) return false;
      return field.pattern === undefined || new RegExp(field.pattern, 'l').test(value);
    }
  }
}

/**
 * Why `input` does not fit the schema, in a person's words, or undefined when it fits.
 * A text schema is checked against the input as typed; an object schema reads the input
 * as a JSON object (what the app's form sends).
 */
export function inputProblem(schema: InputSchema, input: string): string | undefined {
  if (schema.type !== 'object') return fieldFits(schema, input) ? undefined : `The input must be ${fieldRule(schema)}.`;
  const fieldNames = Object.entries(schema.properties).map(([name, field]) => `“${field.title ?? name}”`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    parsed = undefined;
  }
  if (!isRecord(parsed)) return `The input must be a JSON object with the fields ${fieldNames.join(', ')}.`;
  const problems: string[] = [];
  for (const name of schema.required ?? []) {
    if (parsed[name] === undefined) problems.push(`“${schema.properties[name]?.title ?? name}” is missing`);
  }
  for (const [name, value] of Object.entries(parsed)) {
    const field = schema.properties[name];
    if (field === undefined) problems.push(`“${name.slice(0, 64)}” is not one of its fields (${fieldNames.join(', ')})`);
    else if (value !== undefined && !fieldFits(field, value))
      problems.push(`“${field.title ?? name}” must be ${fieldRule(field)}`);
  }
  return problems.length === 0 ? undefined : `${problems.slice(0, 5).join('; ')}.`;
}

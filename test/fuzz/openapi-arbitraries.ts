import fc from 'fast-check';
import type { DocumentedOperation, JsonSchema, OpenApiDocument, Parameter } from './openapi-document.js';
import { resolve } from './openapi-document.js';

/**
 * Requests for one documented operation, derived from its parameters and body schema. Most
 * values follow the schema, so the request reaches the handler; some break it, so the
 * validation and parsing paths are walked too. Every string that could be an id is, often,
 * one of `aims`: the other workspace's real ids, the caller's own, and made-up ones.
 */

export interface Aims {
  /** Ids worth sending where an id goes. */
  ids: string[];
  /** Other strings that are valid somewhere (skill slugs, pack ids, roles). */
  words: string[];
  /**
   * How often (out of 7) a value ignores its schema: 0 for requests that pass validation and
   * reach the handler with B's ids in them, 1 for requests that also probe the validation.
   */
  wildness: number;
}

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
  /** Which of the caller's credentials (or none) the request carries, for the failure report. */
  credential: string;
  /** False when the path cannot be percent-decoded: then no route matches it. */
  routed: boolean;
}

const NASTY = [
  '../',
  '..%2f',
  '%00',
  ' ',
  'null',
  'undefined',
  '-1',
  '1e309',
  '0x10',
  "' OR 1=1 --",
  'ʕ•ᴥ•ʔ',
  '\u202e',
  'a'.repeat(300),
];

/** Any JSON value, or a string from the nasty list: what a careless or hostile client sends. */
function wild(aims: Aims): fc.Arbitrary<unknown> {
  return fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constantFrom(...NASTY, ...aims.ids), fc.string({ maxLength: 30 }));
}

function stringFor(schema: JsonSchema, aims: Aims): fc.Arbitrary<string> {
  const targets = fc.constantFrom(...aims.ids, ...aims.words);
  if (schema.format === 'uuid') return fc.oneof(targets, fc.uuid());
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'date-time') return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  const minLength = schema.minLength ?? 0;
  const plain = fc.string({ minLength, maxLength: Math.max(minLength, Math.min(schema.maxLength ?? 40, 40)) });
  const fits = (text: string) => text.length >= minLength && text.length <= (schema.maxLength ?? Number.POSITIVE_INFINITY);
  return fc.oneof(plain, targets.filter(fits), fc.constantFrom(...NASTY).filter(fits));
}

/** Values the schema accepts (mostly), built from the schema itself. */
function conforming(document: OpenApiDocument, raw: JsonSchema, aims: Aims, depth: number): fc.Arbitrary<unknown> {
  const schema = resolve(document, raw);
  const orNull = (value: fc.Arbitrary<unknown>) => (schema.nullable ? fc.option(value, { nil: null }) : value);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const choices = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (choices) return fc.oneof(...choices.map((choice) => fromSchema(document, choice, aims, depth + 1)));
  switch (schema.type) {
    case 'string':
      return orNull(stringFor(schema, aims));
    case 'integer':
      return orNull(fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 }));
    case 'number':
      return orNull(fc.double({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9, noNaN: true }));
    case 'boolean':
      return orNull(fc.boolean());
    case 'array': {
      const items = schema.items ? fromSchema(document, schema.items, aims, depth + 1) : wild(aims);
      const minLength = schema.minItems ?? 0;
      return orNull(fc.array(items, { minLength, maxLength: Math.max(minLength, Math.min(schema.maxItems ?? 3, 3)) }));
    }
    case 'object': {
      const properties = Object.entries(schema.properties ?? {});
      if (!properties.length) return fc.dictionary(fc.string({ maxLength: 10 }), wild(aims), { maxKeys: 3 });
      const shape = Object.fromEntries(properties.map(([name, value]) => [name, fromSchema(document, value, aims, depth + 1)]));
      return orNull(fc.record(shape, { requiredKeys: schema.required ?? [] }));
    }
    default:
      // No type: the schema takes anything (BYOK's key, say).
      return fc.oneof(stringFor({}, aims), wild(aims));
  }
}

/** A value for `schema`: one it accepts, except `aims.wildness` times in seven anything at all. */
export function fromSchema(document: OpenApiDocument, schema: JsonSchema, aims: Aims, depth = 0): fc.Arbitrary<unknown> {
  // The documented schemas are not recursive; the bound only guards against one that becomes so.
  if (depth > 10) return wild(aims);
  const accepted = conforming(document, schema, aims, depth);
  if (!aims.wildness) return accepted;
  return fc.oneof({ weight: 7 - aims.wildness, arbitrary: accepted }, { weight: aims.wildness, arbitrary: wild(aims) });
}

/** Header values must be visible ASCII, or the HTTP layer refuses them before the server sees them. */
function asHeaderValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.replace(/[^\x21-\x7e ]/g, '?').trim() || '0';
}

function asQueryValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A path value the router still matches to this route: never empty, never a dot segment. */
function asPathValue(value: unknown, wildcard: boolean): string {
  const text = asQueryValue(value);
  const encoded = wildcard ? text.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(text);
  return ['', '.', '..'].includes(encoded) || encoded.split('/').some((part) => part === '.' || part === '..') ? 'x' : encoded;
}

function parameterArbitrary(document: OpenApiDocument, parameter: Parameter, aims: Aims) {
  const value = parameter.schema ? fromSchema(document, parameter.schema, aims) : wild(aims);
  // A path names a resource: mostly a real one (B's, or the caller's own), so handlers run.
  if (parameter.in === 'path')
    return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...aims.ids) }, { weight: 1, arbitrary: value });
  if (parameter.required) return value;
  // Optional headers (the workspace header above all) are left out two times in three, so
  // that most requests act in the caller's own workspace and get past the membership check.
  return sometimes(1, parameter.in === 'header' ? 3 : 2, value);
}

function bodyArbitrary(
  document: OpenApiDocument,
  operation: DocumentedOperation,
  aims: Aims,
): fc.Arbitrary<{ payload: string; type: string } | undefined> {
  const json = operation.body
    ? fromSchema(document, operation.body, aims).map((value) => JSON.stringify(value))
    : fc.constant('{}');
  if (!aims.wildness) {
    return operation.body ? json.map((payload) => ({ payload, type: 'application/json' })) : fc.constant(undefined);
  }
  const junk = fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('{', '[]', 'null', '{"a":', '\u0000'));
  return fc.oneof(
    { weight: operation.body ? 8 : 1, arbitrary: json.map((payload) => ({ payload, type: 'application/json' })) },
    { weight: 1, arbitrary: junk.map((payload) => ({ payload, type: 'application/json' })) },
    { weight: 1, arbitrary: json.map((payload) => ({ payload, type: 'text/plain' })) },
    { weight: operation.body ? 1 : 6, arbitrary: fc.constant(undefined) },
  );
}

/** `value` in `times` draws out of `outOf`, else undefined. */
function sometimes<T>(times: number, outOf: number, value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.oneof({ weight: outOf - times, arbitrary: fc.constant(undefined) }, { weight: times, arbitrary: value });
}

/** Requests for `operation`, each carrying one of `credentials` (a name and its headers). */
export function requestsFor(
  document: OpenApiDocument,
  operation: DocumentedOperation,
  aims: Aims,
  credentials: Record<string, Record<string, string>>,
): fc.Arbitrary<FuzzRequest> {
  const parameters = Object.fromEntries(
    operation.parameters.map((parameter) => [`${parameter.in}:${parameter.name}`, parameterArbitrary(document, parameter, aims)]),
  );
  const sendsBody = operation.method !== 'GET';
  return fc
    .record({
      values: fc.record(parameters),
      credential: fc.constantFrom(...Object.keys(credentials)),
      body: sendsBody ? bodyArbitrary(document, operation, aims) : fc.constant(undefined),
      // Once in eight, a percent sign that decodes to nothing: the router, not the route, refuses it.
      undecodable: aims.wildness ? sometimes(1, 8, fc.constantFrom('%', '%zz', '%E0%A4%A', 'a%2')) : fc.constant(undefined),
      extraQuery: aims.wildness
        ? sometimes(1, 3, fc.tuple(fc.constantFrom('limit', 'offset', 'x', '__proto__'), wild(aims)))
        : fc.constant(undefined),
    })
    .map(({ values, credential, body, undecodable, extraQuery }) => {
      let path = operation.path;
      const query = new URLSearchParams();
      const headers: Record<string, string> = { ...credentials[credential] };
      for (const parameter of operation.parameters) {
        const value = values[`${parameter.in}:${parameter.name}`];
        if (value === undefined) continue;
        if (parameter.in === 'path') {
          path = path.replace(`{${parameter.name}}`, undecodable ?? asPathValue(value, parameter.name === '*'));
        } else if (parameter.in === 'query') query.append(parameter.name, asQueryValue(value));
        else headers[parameter.name.toLowerCase()] = asHeaderValue(value);
      }
      if (extraQuery) query.append(extraQuery[0], asQueryValue(extraQuery[1]));
      if (body) headers['content-type'] = body.type;
      const search = query.size ? `?${query}` : '';
      const routed = undecodable === undefined || !operation.path.includes('{');
      return {
        method: operation.method,
        url: path + search,
        headers,
        credential,
        routed,
        ...(body ? { payload: body.payload } : {}),
      };
    });
}

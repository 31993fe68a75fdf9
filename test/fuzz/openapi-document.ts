import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * The server's own /openapi.json, read as the fuzzer needs it: each operation with its
 * parameters, body and documented answers, and a validator that checks an answer against
 * what the document says the operation gives for that status. The error family of a route
 * is not listed here: the document already names it, as the 4XX and 429 bodies each
 * operation carries (src/http/openapi.ts adds them from the route's config).
 */

export interface JsonSchema {
  $ref?: string;
  type?: string;
  format?: string;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  nullable?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema?: JsonSchema;
}

interface Content {
  schema?: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Content> };
  responses: Record<string, { content?: Record<string, Content> }>;
  security?: Record<string, string[]>[];
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, JsonSchema> };
}

/** One documented operation, named as `METHOD /path/{param}` in test titles and the coverage list. */
export interface DocumentedOperation {
  id: string;
  method: string;
  path: string;
  parameters: Parameter[];
  body: JsonSchema | undefined;
  /** Answered with `text/event-stream` on success: sent over a socket and read only up to its headers. */
  streams: boolean;
  /** Takes no credential at all (the document's empty security list). */
  isPublic: boolean;
  responses: Operation['responses'];
}

export function operationsOf(document: OpenApiDocument): DocumentedOperation[] {
  return Object.entries(document.paths).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, operation]) => ({
      id: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      parameters: operation.parameters ?? [],
      body: operation.requestBody?.content?.['application/json']?.schema,
      streams: Object.values(operation.responses).some((answer) => Boolean(answer.content?.['text/event-stream'])),
      isPublic: (operation.security ?? []).length === 0,
      responses: operation.responses,
    })),
  );
}

/** Follows a `#/components/schemas/<name>` reference (the only kind the document uses). */
export function resolve(document: OpenApiDocument, schema: JsonSchema): JsonSchema {
  if (!schema.$ref) return schema;
  const name = schema.$ref.replace('#/components/schemas/', '');
  const target = document.components.schemas[name];
  if (!target) throw new Error(`the document refers to a schema it lacks: ${schema.$ref}`);
  return target;
}

/**
 * What a request the router cannot match is checked against: a path that cannot be
 * percent-decoded matches no route, so it gets the standard envelope like a 404 does, even
 * under /api/v1/artifacts (docs/decisions.md, "Errors on the wire").
 */
export const UNROUTED: DocumentedOperation = {
  id: 'a path no route matches',
  method: 'GET',
  path: '',
  parameters: [],
  body: undefined,
  streams: false,
  isPublic: true,
  responses: {
    '4XX': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    '429': { content: { 'application/json': { schema: { $ref: '#/components/schemas/RateLimitError' } } } },
  },
};

export interface Verdict {
  ok: boolean;
  why: string;
}

/**
 * Checks answers against the document: the exact status when it is documented, else its
 * class (4XX, 5XX). A status the document does not list at all is itself a failure, and so
 * is a JSON answer whose schema it does not meet. Binary and stream answers are checked only
 * for being documented: their bytes are the stored file's or the stream's.
 */
export function answerChecker(document: OpenApiDocument) {
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats.default(ajv);
  ajv.addSchema({ components: document.components }, 'document');
  const compiled = new Map<string, ValidateFunction>();
  const validatorFor = (key: string, schema: JsonSchema): ValidateFunction => {
    let validate = compiled.get(key);
    if (!validate) {
      // References point into the document registered above, so they resolve as written.
      const rebased = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"document#/components/'));
      validate = ajv.compile(rebased);
      compiled.set(key, validate);
    }
    return validate;
  };

  return (operation: DocumentedOperation, status: number, contentType: string, body: unknown): Verdict => {
    const documented = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`];
    if (!documented) return { ok: false, why: `status ${status} is not documented for ${operation.id}` };
    const json = documented.content?.['application/json']?.schema;
    if (!json) return { ok: true, why: 'not a JSON answer' };
    if (!contentType.startsWith('application/json')) {
      return { ok: false, why: `documented as JSON, answered as ${contentType || 'nothing'}` };
    }
    const validate = validatorFor(`${operation.id} ${status}`, json);
    if (validate(body)) return { ok: true, why: '' };
    return { ok: false, why: `the body does not match the documented ${status}: ${ajv.errorsText(validate.errors)}` };
  };
}

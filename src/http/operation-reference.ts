/**
 * What the API reference says of each operation, for the OpenAPI document and the reference
 * page built from it. Each feature writes its own beside its routes (`<feature>.reference.ts`),
 * keyed by method and path as the document writes them; the assembly gathers them
 * (src/api-reference.ts). A test fails when a route has no entry or an entry names no route,
 * and checks every example against its route's schema.
 */
export interface OperationEntry {
  /** The group it belongs to, a summary (one line) and a description (what to know before calling it). */
  doc: [tag: string, summary: string, description: string];
  /** A request body to copy, for an operation that takes one. */
  request?: unknown;
  /** Its first success answer, when that is JSON. */
  response?: unknown;
  /** Its answers for further success statuses whose example differs from the first one's, by status. */
  further?: Record<string, unknown>;
}

/** One feature's operations, by `METHOD /path` as the document writes them. */
export type OperationReference = Record<string, OperationEntry>;

export interface OperationDoc {
  tag: string;
  summary: string;
  description: string;
}

/** Every operation's entry, looked up by a route's method and Fastify URL. */
export interface ReferenceBook {
  doc(method: string, url: string): OperationDoc | undefined;
  requestExample(method: string, url: string): unknown;
  responseExample(method: string, url: string): unknown;
  furtherStatusExamples(method: string, url: string): Record<string, unknown>;
  /** Every operation with an entry, for the test that matches them against the routes. */
  documented(): string[];
  /** Every operation with a request example. */
  requestExampled(): string[];
  /** Every operation with an answer example. */
  responseExampled(): string[];
}

/** A Fastify route path in the document's form: `:id` as `{id}`, a wildcard as `{*}`. */
export const documentPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}');

/** The features' references as one book; an operation written twice is a mistake, refused at start. */
export function referenceBook(parts: readonly OperationReference[]): ReferenceBook {
  const entries = new Map<string, OperationEntry>();
  for (const part of parts) {
    for (const [key, entry] of Object.entries(part)) {
      if (entries.has(key)) throw new Error(`the API reference describes ${key} twice`);
      entries.set(key, entry);
    }
  }
  const entryOf = (method: string, url: string) => entries.get(`${method} ${documentPath(url)}`);
  const keysWith = (field: 'request' | 'response') =>
    [...entries].filter(([, entry]) => entry[field] !== undefined).map(([key]) => key);
  return {
    doc(method, url) {
      const entry = entryOf(method, url);
      return entry && { tag: entry.doc[0], summary: entry.doc[1], description: entry.doc[2] };
    },
    requestExample: (method, url) => entryOf(method, url)?.request,
    responseExample: (method, url) => entryOf(method, url)?.response,
    furtherStatusExamples: (method, url) => entryOf(method, url)?.further ?? {},
    documented: () => [...entries.keys()],
    requestExampled: () => keysWith('request'),
    responseExampled: () => keysWith('response'),
  };
}

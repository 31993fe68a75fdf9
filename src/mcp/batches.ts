import { DEFAULT_NEGOTIATED_PROTOCOL_VERSION, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';

/**
 * The one MCP revision with JSON-RPC batches: 2025-03-26 added them and 2025-06-18 took them
 * out again, so a batch is served only when every revision the request names is this one.
 */
const BATCHING_REVISION = '2025-03-26';

/** The answer to a batch on a revision without them: a JSON-RPC error, none of the batch run. */
export const BATCH_REFUSAL = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'Batches are not supported in this protocol revision; send one message per request.' },
} as const;

/**
 * The messages of a body that is a JSON array (a batch), or null for any other body, which
 * the SDK answers as it does today (a parse error, a single message).
 */
export function batchOf(body: unknown): unknown[] | null {
  if (typeof body !== 'string' || !/^\s*\[/.test(body)) return null;
  try {
    const parsed: unknown = JSON.parse(body);
    return Array.isArray(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** The revision a message names itself: an initialize's protocolVersion, or the 2026 revisions' _meta claim. */
function revisionNamedBy(message: unknown): string | undefined {
  if (!isObject(message) || !isObject(message.params)) return undefined;
  const { params } = message;
  if (message.method === 'initialize' && typeof params.protocolVersion === 'string') return params.protocolVersion;
  const claim = isObject(params._meta) ? params._meta[PROTOCOL_VERSION_META_KEY] : undefined;
  return typeof claim === 'string' ? claim : undefined;
}

/**
 * Whether a batch may be served: the `mcp-protocol-version` header and every revision a
 * message names are all 2025-03-26. A request naming none is taken for the revision the SDK
 * assumes without a header, which is 2025-03-26 today; should the SDK's default move on, such
 * batches are refused with it.
 */
export function batchAllowed(header: string | string[] | undefined, messages: unknown[]): boolean {
  const named = [header === undefined ? undefined : String(header), ...messages.map(revisionNamedBy)];
  const revisions = named.filter((revision): revision is string => revision !== undefined);
  if (revisions.length === 0) revisions.push(DEFAULT_NEGOTIATED_PROTOCOL_VERSION);
  return revisions.every((revision) => revision === BATCHING_REVISION);
}

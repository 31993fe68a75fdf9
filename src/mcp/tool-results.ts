import type { Readable } from 'node:stream';
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/server';
import type { FastifyBaseLogger } from 'fastify';
import type { ArtifactView } from '../artifacts/artifact-view.js';
import { isText } from '../artifacts/bundle.js';
import type { Delivery } from '../artifacts/delivery.js';
import { AppError, PayloadTooLarge } from '../errors.js';

/**
 * A tool's answer as data: the JSON in `structuredContent`, and the same JSON as text for
 * clients older than structured content (the MCP spec asks servers to send both).
 */
export function jsonResult(value: Record<string, unknown>, extra: ContentBlock[] = []): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }, ...extra], structuredContent: value };
}

/**
 * Runs a tool's work. A refusal from the domain (not found, no credits, a run already
 * going, a rate limit) is a tool error the model can read and act on, `CODE: message`, as
 * the MCP spec wants for failures of the tool rather than of the protocol. Work given up
 * because the request was (`signal`: the client cancelled or went away) is no failure
 * either; nobody reads that answer. Anything else is a bug: logged, and answered without
 * its message, which may carry internals.
 */
export async function toolAnswer(
  log: FastifyBaseLogger,
  work: () => Promise<CallToolResult>,
  signal?: AbortSignal,
): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppError) return { isError: true, content: [{ type: 'text', text: `${error.code}: ${error.message}` }] };
    if (signal?.aborted) return { isError: true, content: [{ type: 'text', text: 'CANCELLED: The request was cancelled' }] };
    log.error({ err: error }, 'MCP tool failed');
    return { isError: true, content: [{ type: 'text', text: 'INTERNAL_ERROR: Internal server error' }] };
  }
}

/** Where an artifact can be fetched over HTTP with the same credential: its one file, or its bundle as a ZIP. */
export function artifactUrl(publicUrl: string, artifactId: string): string {
  return `${publicUrl}/api/v1/artifacts/${encodeURIComponent(artifactId)}/download`;
}

/** A file of an artifact at its REST address, each path segment encoded. */
export function artifactFileUrl(publicUrl: string, artifactId: string, path: string): string {
  const encoded = path.split('/').map(encodeURIComponent).join('/');
  return `${publicUrl}/api/v1/artifacts/${encodeURIComponent(artifactId)}/file/${encoded}`;
}

/** A link to an artifact in a tool result; read_artifact reads it through MCP itself. */
export function artifactLink(publicUrl: string, artifact: ArtifactView): ContentBlock {
  return {
    type: 'resource_link',
    uri: artifactUrl(publicUrl, artifact.id),
    name: artifact.title,
    mimeType: artifact.fileType,
    size: artifact.contentSize,
    description: `Artifact ${artifact.id}: read it with read_artifact {"artifactId": "${artifact.id}"}`,
  };
}

/** The most of one file read_artifact puts in a result; larger files are for the download URL. */
const READ_LIMIT_BYTES = 1024 * 1024;

async function bytesUpTo(body: Readable, limit: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of body) {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
      chunks.push(buffer);
      length += buffer.length;
      if (length > limit) return null;
    }
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks);
}

/** One file as an embedded resource: text as text, anything else as base64. */
export async function fileContent(delivery: Delivery, uri: string): Promise<ContentBlock> {
  const bytes = await bytesUpTo(delivery.body, READ_LIMIT_BYTES);
  if (bytes === null) {
    throw new PayloadTooLarge(`This file is larger than ${READ_LIMIT_BYTES} bytes; download it from ${uri}`);
  }
  const mimeType = delivery.contentType;
  const resource = isText(mimeType.split(';')[0]?.trim() ?? '')
    ? { uri, mimeType, text: new TextDecoder().decode(bytes) }
    : { uri, mimeType, blob: bytes.toString('base64') };
  return { type: 'resource', resource };
}

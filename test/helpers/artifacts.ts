import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { crc32 } from 'node:zlib';
import { expect } from 'vitest';
import yauzl from 'yauzl';
import { session, type TestUser } from './factories.js';
import type { Client } from './http.js';
import { openStream, type StreamEvent } from './sse.js';

/**
 * Runs a skill to its end in the caller's workspace (`headers` may pick another) and
 * returns the artifact the run wrote, as its execution.result names it.
 */
export async function runForArtifact(
  api: Client,
  user: TestUser,
  skill: string,
  input: string,
  headers: Record<string, string> = {},
): Promise<{ artifactId: string; events: StreamEvent[] }> {
  const auth = session(user, headers);
  const created = await api.post<{ id: string }>('/api/v1/executions', { body: { skill_slug: skill, input }, headers: auth });
  expect(created.status).toBe(200);
  const token = await api.get<{ sseUrl: string }>(`/api/v1/executions/${created.body.id}/stream-token`, { headers: auth });
  const stream = await openStream(token.body.sseUrl);
  const started = await api.post(`/api/v1/executions/${created.body.id}/events`, {
    body: { events: [{ type: 'user.message', content: [{ type: 'text', text: input }] }] },
    headers: auth,
  });
  expect(started.status).toBe(200);
  await stream.ended;
  const result = stream.events.find((event) => event.type === 'execution.result');
  const artifactId = result?.payload.artifactId;
  if (typeof artifactId !== 'string') throw new Error(`the run wrote no artifact: ${JSON.stringify(stream.events.slice(-3))}`);
  return { artifactId, events: stream.events };
}

export async function bytesOf(url: string, headers: Record<string, string>) {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

export function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Every entry of a ZIP archive, read with an independent unzip library, which also checks
 * the sizes; the CRC-32 each entry declares is checked here.
 */
export function unzip(archive: Buffer): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(archive, { lazyEntries: true, validateEntrySizes: true }, (error, zip) => {
      if (error || !zip) return reject(error);
      const entries = new Map<string, Buffer>();
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) return reject(streamError);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            const data = Buffer.concat(chunks);
            if (crc32(data) !== entry.crc32) return reject(new Error(`${entry.fileName}: CRC-32 does not match its header`));
            entries.set(entry.fileName, data);
            zip.readEntry();
          });
          stream.on('error', reject);
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** A GET whose path is sent exactly as written: fetch would resolve `..` and re-encode it. */
export function rawGet(baseUrl: string, rawPath: string, headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(baseUrl);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const outgoing = request({ hostname, port, path: rawPath, method: 'GET', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

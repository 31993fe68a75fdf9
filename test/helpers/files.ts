import { request } from 'node:http';
import type { Reply } from './http.js';

/** A file as the files routes answer with it. */
export interface InputFile {
  id: string;
  filename: string;
  size: number;
  mimeType: string;
  sha256: string;
  createdAt: string;
  expiresAt: string | null;
}

async function replyOf<T>(response: Response): Promise<Reply<T>> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body: body as T, text };
}

/** An upload as the request body, named by x-filename. */
export async function uploadRaw(
  baseUrl: string,
  headers: Record<string, string>,
  filename: string,
  bytes: Buffer | string,
  contentType?: string,
): Promise<Reply<InputFile>> {
  const response = await fetch(`${baseUrl}/api/v1/files`, {
    method: 'POST',
    headers: { ...headers, 'x-filename': filename, ...(contentType ? { 'content-type': contentType } : {}) },
    body: bytes,
  });
  return replyOf(response);
}

/** An upload as a browser sends it: a multipart form, the file in its `file` field, other fields beside. */
export async function uploadForm(
  baseUrl: string,
  headers: Record<string, string>,
  filename: string,
  bytes: Buffer | string,
  options: { type?: string; fieldName?: string; before?: Record<string, string> } = {},
): Promise<Reply<InputFile>> {
  const form = new FormData();
  for (const [name, value] of Object.entries(options.before ?? {})) form.append(name, value);
  form.append(options.fieldName ?? 'file', new Blob([bytes], options.type ? { type: options.type } : {}), filename);
  return replyOf(await fetch(`${baseUrl}/api/v1/files`, { method: 'POST', headers, body: form }));
}

/** A body sent as it is written, for malformed forms. */
export async function uploadBody(
  baseUrl: string,
  headers: Record<string, string>,
  body: string | Buffer,
): Promise<Reply<InputFile>> {
  return replyOf(await fetch(`${baseUrl}/api/v1/files`, { method: 'POST', headers, body }));
}

/**
 * Sends `chunk` over and over without a declared length (chunked) until the server answers
 * or `maxBytes` went out; resolves with the answer and how many bytes were written by then.
 */
export function uploadEndless(
  baseUrl: string,
  headers: Record<string, string>,
  chunk: Buffer,
  maxBytes: number,
): Promise<{ status: number; body: string; sentBytes: number }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    let sentBytes = 0;
    let answered = false;
    const outgoing = request({ host: hostname, port, method: 'POST', path: '/api/v1/files', headers }, (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (data: Buffer) => chunks.push(data));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString(), sentBytes }));
      response.on('error', reject);
    });
    // The server closes the connection once it has answered: writes after that fail, as they should.
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sentBytes < maxBytes && !outgoing.destroyed) {
        sentBytes += chunk.length;
        if (!outgoing.write(chunk)) {
          outgoing.once('drain', pump);
          return;
        }
      }
      if (!answered && !outgoing.destroyed) outgoing.end();
    };
    pump();
  });
}

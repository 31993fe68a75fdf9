import { errorFromResponse } from '../../src/sdk/errors.js';
import { inPlainWords } from './error-words.js';
import { forgetReads, sharedRead } from './shared-reads.js';

/**
 * The app's one door to the API. The session lives in an httpOnly cookie the page cannot
 * read; every request says it comes from the app (the header a cross-site page cannot send
 * without a preflight), which the server requires before it acts on the cookie. A failed
 * request throws the SDK's SkilletError, read from whichever envelope the route answered in.
 */

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called when the server says the session is gone, so the app can show sign-in. */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** How often a read refused for the rate limit is tried again, each after the wait the server names. */
const RATE_LIMIT_RETRIES = 3;

/**
 * How long to wait before asking again, for an answer of the per-minute limiter: a 429 whose
 * Retry-After is within the minute it counts. Undefined for any other answer, a 429 without
 * one included (a run already going, which waiting a second does not end).
 */
function limiterWaitMs(response: Response): number | undefined {
  const header = response.status === 429 ? response.headers.get('retry-after') : null;
  if (header === null || !/^\d+$/.test(header) || Number(header) > 60) return undefined;
  return Math.max(1, Number(header)) * 1000;
}

async function send(method: string, path: string, init: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await fetch(path, { ...init, method, credentials: 'same-origin' });
    } catch {
      // The browser's own words ("Failed to fetch") say nothing a person can act on.
      throw new Error('Could not reach the server. Check your connection and try again.');
    }
    // A read changes nothing, so it waits out the limit quietly and asks again; a change is
    // left to the person, who is told how long to wait.
    const waitMs = method === 'GET' && attempt < RATE_LIMIT_RETRIES ? limiterWaitMs(response) : undefined;
    if (waitMs === undefined) return response;
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

export function api<T>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<T> {
  if (method === 'GET') return sharedRead(path, () => request<T>(method, path, body, extraHeaders));
  // Whatever the app changes may show in any answer it holds.
  forgetReads();
  return request<T>(method, path, body, extraHeaders).finally(forgetReads);
}

async function request<T>(method: string, path: string, body: unknown, extraHeaders: Record<string, string>): Promise<T> {
  const headers: Record<string, string> = { ...extraHeaders, 'x-skillet-app': '1' };
  // A file goes as it is (an upload); anything else as JSON.
  const raw = body instanceof Blob;
  if (body !== undefined && !raw) headers['content-type'] = 'application/json';
  const response = await send(method, path, {
    headers,
    body: body === undefined || raw ? (body as Blob | undefined) : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const error = inPlainWords(errorFromResponse(response.status, parsed, response.headers.get('retry-after')));
    if (response.status === 401) {
      forgetReads();
      for (const listener of signedOutListeners) listener();
    }
    throw error;
  }
  return parsed as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown, headers?: Record<string, string>) =>
  api<T>('POST', path, body ?? {}, headers);
export const put = <T>(path: string, body?: unknown) => api<T>('PUT', path, body ?? {});
export const patch = <T>(path: string, body: unknown) => api<T>('PATCH', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);

/** A message fit to show a person for whatever a request threw. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

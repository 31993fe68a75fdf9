import { errorFromResponse } from '../../src/sdk/errors';
import { inPlainWords } from './error-words';

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

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<T> {
  const headers: Record<string, string> = { ...extraHeaders, 'x-skillet-app': '1' };
  // A file goes as it is (an upload); anything else as JSON.
  const raw = body instanceof Blob;
  if (body !== undefined && !raw) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined || raw ? (body as Blob | undefined) : JSON.stringify(body),
    });
  } catch {
    // The browser's own words ("Failed to fetch") say nothing a person can act on.
    throw new Error('Could not reach the server. Check your connection and try again.');
  }
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const error = inPlainWords(errorFromResponse(response.status, parsed, response.headers.get('retry-after')));
    if (response.status === 401) for (const listener of signedOutListeners) listener();
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

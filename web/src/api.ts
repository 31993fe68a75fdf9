/**
 * The app's one door to the API. The session lives in an httpOnly cookie the page cannot
 * read; every request says it comes from the app (the header a cross-site page cannot send
 * without a preflight), which the server requires before it acts on the cookie.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** Called when the server says the session is gone, so the app can show sign-in. */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

function errorOf(status: number, body: unknown): ApiError {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    const nested = record.error;
    if (nested && typeof nested === 'object') {
      const { code, message } = nested as Record<string, unknown>;
      return new ApiError(status, String(code ?? 'ERROR'), String(message ?? 'Request failed'));
    }
    // A running execution's 429 is {error: "EXECUTION_RUNNING", message}; the artifact
    // routes' older envelope is {success: false, error: "message", code}.
    if (typeof nested === 'string' && typeof record.message === 'string') return new ApiError(status, nested, record.message);
    if (typeof nested === 'string') return new ApiError(status, String(record.code ?? 'ERROR'), nested);
  }
  return new ApiError(status, 'ERROR', `Request failed (${status})`);
}

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  extraHeaders: Record<string, string> = {},
): Promise<T> {
  const headers: Record<string, string> = { ...extraHeaders, 'x-skillet-app': '1' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const error = errorOf(response.status, parsed);
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
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

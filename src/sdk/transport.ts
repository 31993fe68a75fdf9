import { errorFromResponse, SkilletError } from './errors.js';

export interface ClientOptions {
  /** The server, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** An API key (`x-api-key`); or `authToken` for a person's session. */
  apiKey?: string;
  authToken?: string;
  /** Sent as x-workspace-id with a session token. */
  workspaceId?: string;
  /** How many times a 429 is waited out and retried (default 3). */
  maxRetries?: number;
  /** The longest single wait for a Retry-After, in seconds (default 30). */
  maxRetryWaitSeconds?: number;
  fetch?: typeof fetch;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The SkilletError a refusal reads as, from whichever envelope it came in. */
async function failureOf(response: Response): Promise<SkilletError> {
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON: the status speaks for itself.
  }
  return errorFromResponse(response.status, parsed, response.headers.get('retry-after'));
}

/** The HTTP core: credentials, JSON in and out, error bodies to SkilletError, bounded 429 retries. */
export class Transport {
  readonly baseUrl: string;
  readonly #options: ClientOptions;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.#options = options;
    this.#fetch = options.fetch ?? fetch;
  }

  headers(extra: Record<string, string> = {}): Record<string, string> {
    const { apiKey, authToken, workspaceId } = this.#options;
    return {
      ...(apiKey ? { 'x-api-key': apiKey } : {}),
      ...(authToken ? { 'x-auth-token': authToken } : {}),
      ...(workspaceId ? { 'x-workspace-id': workspaceId } : {}),
      ...extra,
    };
  }

  /** A raw response for a 2xx; anything else becomes a SkilletError (after any 429 retries). */
  async send(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<Response> {
    const maxRetries = this.#options.maxRetries ?? 3;
    const maxWait = this.#options.maxRetryWaitSeconds ?? 30;
    for (let attempt = 0; ; attempt++) {
      const response = await this.#fetch(`${this.baseUrl}${path}`, {
        method,
        headers: this.headers({ ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extraHeaders }),
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
      });
      if (response.ok) return response;
      const error = await failureOf(response);
      // Only a rate limit is waited out; a busy workspace (also 429) is an answer, not a delay.
      const waitSeconds = error.code === 'RATE_LIMITED' ? (error.retryAfterSeconds ?? 1) : undefined;
      if (waitSeconds === undefined || attempt >= maxRetries || waitSeconds > maxWait) throw error;
      await sleep(waitSeconds * 1000);
    }
  }

  /**
   * A body streamed as it is (an upload), with the credentials; a 2xx answer as JSON. A
   * stream can be read only once, so a refusal is thrown as it is, a 429 included.
   */
  async stream<T>(path: string, body: ReadableStream<Uint8Array> | Blob, extraHeaders: Record<string, string>): Promise<T> {
    const response = await this.#fetch(`${this.baseUrl}${path}`, {
      method: 'POST',
      headers: this.headers(extraHeaders),
      body,
      // Node's fetch sends a stream only when told the answer may come before it ends.
      ...(body instanceof Blob ? {} : { duplex: 'half' }),
    } as RequestInit);
    if (!response.ok) throw await failureOf(response);
    return (await response.json()) as T;
  }

  /**
   * One request with the credentials and the body exactly as given, answered whatever its
   * status: for raw calls (`skillet api`) that show the server's own error body.
   */
  raw(method: string, path: string, body?: string, extraHeaders: Record<string, string> = {}): Promise<Response> {
    return this.#fetch(`${this.baseUrl}${path}`, {
      method,
      headers: this.headers(extraHeaders),
      ...(body === undefined ? {} : { body }),
    });
  }

  async json<T>(method: string, path: string, body?: unknown, extraHeaders?: Record<string, string>): Promise<T> {
    const response = await this.send(method, path, body, extraHeaders);
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new SkilletError(response.status, 'BAD_RESPONSE', `Expected JSON from ${method} ${path}`);
    }
  }
}

export interface Reply<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as-is instead of JSON-encoding `body`. */
  raw?: string;
}

/** A small fetch wrapper: JSON in, JSON (or text) out, status and headers kept. */
export function client(baseUrl: string) {
  async function send<T>(method: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
    const hasBody = options.raw !== undefined || options.body !== undefined;
    const response = await fetch(baseUrl + path, {
      method,
      headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
      ...(hasBody ? { body: options.raw ?? JSON.stringify(options.body) } : {}),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON (an HTML page, say): keep the text.
    }
    return { status: response.status, headers: response.headers, body: body as T, text };
  }
  return {
    get: <T = unknown>(path: string, options?: RequestOptions) => send<T>('GET', path, options),
    post: <T = unknown>(path: string, options?: RequestOptions) => send<T>('POST', path, options),
    put: <T = unknown>(path: string, options?: RequestOptions) => send<T>('PUT', path, options),
    delete: <T = unknown>(path: string, options?: RequestOptions) => send<T>('DELETE', path, options),
  };
}

export type Client = ReturnType<typeof client>;

/** The same text with its last character changed, for tampering with a signature. */
export function tamper(text: string): string {
  const last = text.at(-1);
  return `${text.slice(0, -1)}${last === '0' ? '1' : '0'}`;
}

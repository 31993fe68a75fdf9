/**
 * Every failed call, whatever envelope the route family answered in: the HTTP status, the
 * spec's error code (`INVALID_INPUT`, `EXECUTION_RUNNING`, `RATE_LIMITED`, ...; for the
 * artifacts' older shape, one derived from the status), and the message.
 */
export class SkilletError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds the server asked to wait (429 only). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'SkilletError';
  }
}

const CODES_BY_STATUS: Record<number, string> = {
  400: 'INVALID_INPUT',
  401: 'UNAUTHORIZED',
  402: 'INSUFFICIENT_CREDITS',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  410: 'EXPIRED',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
};

/** Reads any of the service's error bodies. */
export function errorFromResponse(status: number, body: unknown, retryAfter: string | null): SkilletError {
  const retryAfterSeconds = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
  const fallback = CODES_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL_ERROR' : 'HTTP_ERROR');
  const error = (body as { error?: unknown; message?: unknown; isRunning?: unknown } | null)?.error;
  if (error && typeof error === 'object') {
    const { code, type, message } = error as { code?: unknown; type?: unknown; message?: unknown };
    const named = typeof code === 'string' ? code : type === 'rate_limit_error' ? 'RATE_LIMITED' : fallback;
    return new SkilletError(status, named, typeof message === 'string' ? message : `HTTP ${status}`, retryAfterSeconds);
  }
  if (typeof error === 'string') {
    const message = (body as { message?: unknown }).message;
    // {"error": "EXECUTION_RUNNING", "message": ...}, or the artifacts' {"error": <message>, "isRunning"}.
    if (typeof message === 'string') return new SkilletError(status, error, message, retryAfterSeconds);
    const isRunning = (body as { isRunning?: unknown }).isRunning === true;
    return new SkilletError(status, isRunning ? 'EXECUTION_RUNNING' : fallback, error, retryAfterSeconds);
  }
  return new SkilletError(status, fallback, `HTTP ${status}`, retryAfterSeconds);
}

/**
 * The one error hierarchy. Domain code throws these; src/http/error-renderer.ts is the
 * only place that turns them into a response body, in the envelope of the route family,
 * and src/http/error-writer.ts the only one that sends it.
 * `code` is the stable id clients branch on; `message` is prose.
 */
export abstract class AppError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
}

export class InvalidInput extends AppError {
  readonly status = 400;
  readonly code = 'INVALID_INPUT';
}

export class Unauthorized extends AppError {
  readonly status = 401;
  readonly code = 'UNAUTHORIZED';
}

export class Forbidden extends AppError {
  readonly status = 403;
  readonly code = 'FORBIDDEN';
}

export class NotFound extends AppError {
  readonly status = 404;
  readonly code = 'NOT_FOUND';
}

/** A priced run for someone who cannot pay for it. */
export class PaymentRequired extends AppError {
  readonly status = 402;
  readonly code = 'INSUFFICIENT_CREDITS';
}

/** A known address asked to do what it does not (replace a list, read an action). Sent with an Allow header. */
export class MethodNotAllowed extends AppError {
  readonly status = 405;
  readonly code = 'METHOD_NOT_ALLOWED';

  constructor(
    message: string,
    readonly allowed: readonly string[] = [],
  ) {
    super(message);
  }
}

export class Conflict extends AppError {
  readonly status = 409;
  readonly code = 'CONFLICT';
}

export class Expired extends AppError {
  readonly status = 410;
  readonly code = 'EXPIRED';
}

export class PayloadTooLarge extends AppError {
  readonly status = 413;
  readonly code = 'PAYLOAD_TOO_LARGE';
}

/** Request headers over Node's limit: refused by the HTTP parser, before any route. */
export class HeadersTooLarge extends AppError {
  readonly status = 431;
  readonly code = 'INVALID_INPUT';
}

/** A request (headers and body) that did not arrive within its deadline. */
export class RequestTimeout extends AppError {
  readonly status = 408;
  readonly code = 'INVALID_INPUT';
}

/** A request over a rate limit. Rendered in the rate-limit envelope with Retry-After. */
export class RateLimited extends AppError {
  readonly status = 429;
  readonly code = 'RATE_LIMITED';

  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** More of something under way at once than one person may have (thread turns: THREAD_TURNS_PER_USER). */
export class TooManyAtOnce extends AppError {
  readonly status = 429;
  readonly code = 'TOO_MANY_AT_ONCE';
}

export class InternalError extends AppError {
  readonly status = 500;
  readonly code = 'INTERNAL_ERROR';
}

/** Something this server is not set up to do, by its operator's settings (payments without a provider). */
export class ServiceUnavailable extends AppError {
  readonly status = 503;
  readonly code = 'SERVICE_UNAVAILABLE';
}

/** A second run in a workspace that already has one. Has its own legacy 429 body. */
export class ExecutionRunning extends AppError {
  readonly status = 429;
  readonly code = 'EXECUTION_RUNNING';
}

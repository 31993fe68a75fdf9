import { isConnectionLost } from '../db/connection-loss.js';
import {
  AppError,
  ExecutionRunning,
  InternalError,
  InvalidInput,
  MethodNotAllowed,
  NotFound,
  PayloadTooLarge,
  RateLimited,
  ServiceUnavailable,
} from '../errors.js';
import type { ErrorFamily } from './route-config.js';
import { validationMessage } from './validation-words.js';

export interface RenderedError {
  status: number;
  body: unknown;
  headers: Record<string, string>;
  /** A bug, or the database lost under a request: worth a log line with the stack. */
  unexpected: boolean;
}

interface FrameworkError {
  code?: unknown;
  statusCode?: unknown;
  validation?: unknown;
  validationContext?: unknown;
  message: string;
}

function isFrameworkError(error: unknown): error is FrameworkError {
  return error instanceof Error;
}

/** Fastify's own failures (validation, body parsing, limits) become our typed errors. */
function fromFramework(error: FrameworkError): AppError | null {
  if (error.validation) return new InvalidInput(validationMessage(error.validation, error.validationContext));
  const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
  if (status === 413) return new PayloadTooLarge('Request body is too large');
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new InvalidInput('Unsupported Content-Type');
  if (error.code === 'FST_ERR_BAD_URL') return new InvalidInput('This address is not a valid one. Check the link.');
  if (status === 404) return new NotFound(error.message);
  if (status >= 400 && status < 500) return new InvalidInput(error.message);
  return null;
}

function asAppError(error: unknown): { error: AppError; unexpected: boolean } {
  // A 503 is the operator's settings speaking (and was warned about at start), not a bug.
  if (error instanceof AppError) return { error, unexpected: error.status >= 500 && !(error instanceof ServiceUnavailable) };
  // First: a client that hung up in the middle of its body is Fastify's 400 with code
  // ECONNRESET, which the database check below would take for a lost database connection.
  const mapped = isFrameworkError(error) ? fromFramework(error) : null;
  if (mapped) return { error: mapped, unexpected: false };
  // The database connection went away under the request (a failover, a restart): nothing is
  // wrong with the request and it may be sent again, but the operator should hear of it.
  if (isConnectionLost(error))
    return { error: new ServiceUnavailable('The database is unreachable; try again'), unexpected: true };
  return { error: new InternalError('Internal server error'), unexpected: true };
}

/** The only place an error becomes a response body. */
export function renderError(thrown: unknown, family: ErrorFamily): RenderedError {
  const { error, unexpected } = asAppError(thrown);
  if (error instanceof RateLimited) {
    return {
      status: 429,
      body: { error: { type: 'rate_limit_error', message: error.message } },
      headers: { 'retry-after': String(Math.max(1, error.retryAfterSeconds)) },
      unexpected,
    };
  }
  if (family === 'artifact') {
    const isRunning = error instanceof ExecutionRunning;
    return { status: error.status, body: { error: error.message, isRunning }, headers: {}, unexpected };
  }
  if (error instanceof ExecutionRunning) {
    return { status: 429, body: { error: 'EXECUTION_RUNNING', message: error.message }, headers: {}, unexpected };
  }
  // RFC 9110: a 405 names the methods the address does take.
  const headers: Record<string, string> = error instanceof MethodNotAllowed ? { allow: error.allowed.join(', ') } : {};
  return { status: error.status, body: { error: { code: error.code, message: error.message } }, headers, unexpected };
}

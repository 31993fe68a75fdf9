import { SkilletError } from '../../src/sdk/errors.js';

const waitThen = (seconds: number) => `wait ${seconds} second${seconds === 1 ? '' : 's'}, then try again`;

/**
 * The per-minute limiter's own words (src/identity/request-limits.ts, src/identity/rate-limits.ts) blame
 * the person and give no time; the server sends the wait in Retry-After, so it is said. Other
 * refusals of 429 (failed sign-ins, unknown codes) already say what to do, and stay as they are.
 */
const LIMITER_WORDS = new Map<string, (seconds: number) => string>([
  [
    'Rate limit exceeded; slow down',
    (seconds) => `You have sent the server more requests this minute than it takes: ${waitThen(seconds)}.`,
  ],
  [
    'Too many executions started; wait a moment',
    (seconds) => `Too many runs were started in the last minute: ${waitThen(seconds)}.`,
  ],
]);

/**
 * An answer with no message of the service's own (a proxy's error page, an empty body) reads
 * as the SDK's bare "HTTP 502": people get what happened and what to do instead.
 */
export function inPlainWords(error: SkilletError): SkilletError {
  const wait = error.status === 429 ? LIMITER_WORDS.get(error.message) : undefined;
  if (wait) return new SkilletError(429, error.code, wait(error.retryAfterSeconds ?? 60), error.retryAfterSeconds);
  if (error.message !== `HTTP ${error.status}`) return error;
  const words =
    error.status >= 500
      ? `The server could not answer just now (error ${error.status}). Try again in a moment.`
      : `The server refused this request (error ${error.status}). Reload the page and try again.`;
  return new SkilletError(error.status, error.code, words, error.retryAfterSeconds);
}

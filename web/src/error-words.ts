import { SkilletError } from '../../src/sdk/errors.js';

/**
 * An answer with no message of the service's own (a proxy's error page, an empty body) reads
 * as the SDK's bare "HTTP 502": people get what happened and what to do instead.
 */
export function inPlainWords(error: SkilletError): SkilletError {
  if (error.message !== `HTTP ${error.status}`) return error;
  const words =
    error.status >= 500
      ? `The server could not answer just now (error ${error.status}). Try again in a moment.`
      : `The server refused this request (error ${error.status}). Reload the page and try again.`;
  return new SkilletError(error.status, error.code, words, error.retryAfterSeconds);
}

import { ModelCallFailed, type ModelEndpoint, type ModelRequest } from './conversation.js';

/** Words for the statuses a person meets most, so agent.info reads without a lookup. */
const STATUS_WORDS: Record<number, string> = {
  400: 'bad request',
  401: 'key refused',
  403: 'forbidden',
  404: 'not found',
  408: 'request timeout',
  409: 'conflict',
  413: 'request too large',
  422: 'unprocessable request',
  429: 'rate limited',
  500: 'server error',
  502: 'bad gateway',
  503: 'unavailable',
  504: 'gateway timeout',
  529: 'overloaded',
};

/** What both SDKs' HTTP errors carry (their classes differ, their shape does not). */
export interface ApiFailure extends Error {
  status: number | undefined;
  headers: Headers | undefined;
}

type ErrorClass<E extends Error> = abstract new (...args: never[]) => E;

/** How one vendor's failures read: its name, its SDK's error classes, the vendor's own reason. */
export interface VendorFailures<E extends ApiFailure> {
  /** "the Anthropic API", "the OpenAI-compatible server at host:port". */
  vendor: string;
  /** What could not be reached, when the connection failed. */
  reachable: string;
  classes: { api: ErrorClass<E>; connection: ErrorClass<Error>; timeout: ErrorClass<Error> };
  reasonOf(error: E): string;
}

/** Whether the SDK retried this status before giving up (their shared rule: 408, 409, 429, 5xx, or x-should-retry). */
function wasRetried(error: ApiFailure): boolean {
  const header = error.headers?.get('x-should-retry');
  if (header === 'true' || header === 'false') return header === 'true';
  const status = error.status ?? 0;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** fetch wraps the telling reason ("connect ECONNREFUSED", "other side closed") in causes of its own. */
function innermost(error: Error): string {
  let deepest = error;
  while (deepest.cause instanceof Error) deepest = deepest.cause;
  return deepest.message;
}

/** The failure as a person reads it: vendor, status, retries, the vendor's reason; the key blanked wherever it shows. */
function describeFailure<E extends ApiFailure>(error: unknown, endpoint: ModelEndpoint, how: VendorFailures<E>): ModelCallFailed {
  const { vendor, classes } = how;
  const retries =
    endpoint.maxRetries > 0 ? ` after ${endpoint.maxRetries} ${endpoint.maxRetries === 1 ? 'retry' : 'retries'}` : '';
  const blank = (text: string) => (endpoint.apiKey.length > 0 ? text.split(endpoint.apiKey).join('[key]') : text).slice(0, 500);
  if (error instanceof classes.timeout) {
    return new ModelCallFailed(blank(`${vendor} did not answer within ${endpoint.timeoutMs} ms${retries}`));
  }
  if (error instanceof classes.connection) {
    const cause = error.cause instanceof Error ? `: ${innermost(error.cause)}` : '';
    return new ModelCallFailed(blank(`could not reach ${how.reachable}${retries}${cause}`));
  }
  if (error instanceof classes.api) {
    const reason = how.reasonOf(error);
    const said = reason === '' ? '' : `: ${reason}`;
    if (error.status === undefined) {
      // An error event inside a 200 stream (overloaded mid-answer, say): not retried by the SDKs.
      return new ModelCallFailed(blank(`${vendor} broke off its answer with an error${said}`));
    }
    const words = STATUS_WORDS[error.status] ? ` (${STATUS_WORDS[error.status]})` : '';
    const after = wasRetried(error) ? retries : '';
    return new ModelCallFailed(blank(`${vendor} answered ${error.status}${words}${after}${said}`), error.status);
  }
  // What is left is the body stream failing under the SDK: the connection cut mid-answer, or bad SSE.
  const detail = error instanceof Error ? innermost(error) : String(error);
  return new ModelCallFailed(blank(`the connection to ${vendor} broke mid-answer (${detail})`));
}

/** onBlock's own failure, kept apart from the vendor's so that it reaches the caller unchanged. */
class BlockHandlerFailed extends Error {}

function handing(onBlock: ModelRequest['onBlock']): ModelRequest['onBlock'] {
  return (block) => {
    try {
      onBlock(block);
    } catch (error) {
      throw new BlockHandlerFailed('onBlock threw', { cause: error });
    }
  };
}

/**
 * One streamed model call with the rules both clients share: the whole call, streamed
 * body included, bounded by the endpoint's timeout (the SDKs' own stops at the headers);
 * an abort rejects with the caller's reason, never as a model failure; an exception of
 * onBlock reaches the caller unchanged; anything else becomes a ModelCallFailed.
 */
export async function streamedCall<T, E extends ApiFailure>(
  endpoint: ModelEndpoint,
  request: ModelRequest,
  how: VendorFailures<E>,
  call: (signal: AbortSignal, onBlock: ModelRequest['onBlock']) => Promise<T>,
): Promise<T> {
  // A controller of the call's own, its timer and listener gone when the call ends:
  // AbortSignal.timeout and AbortSignal.any would leave a timer and weak references behind
  // each call for as long as the timeout, which the collector then walks on every pass.
  const stop = new AbortController();
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    stop.abort();
  }, endpoint.timeoutMs);
  const abort = () => stop.abort(request.signal.reason);
  if (request.signal.aborted) abort();
  else request.signal.addEventListener('abort', abort, { once: true });
  try {
    return await call(stop.signal, handing(request.onBlock));
  } catch (error) {
    if (error instanceof BlockHandlerFailed) throw error.cause;
    if (request.signal.aborted) throw request.signal.reason ?? new DOMException('The model call was aborted', 'AbortError');
    if (timedOut) throw new ModelCallFailed(`${how.vendor} did not finish its answer within ${endpoint.timeoutMs} ms`);
    throw describeFailure(error, endpoint, how);
  } finally {
    clearTimeout(deadline);
    request.signal.removeEventListener('abort', abort);
  }
}

/** The host of a base URL, for messages; never the whole URL, which may carry credentials. */
export function hostOf(baseUrl: string): string | undefined {
  try {
    return new URL(baseUrl).host;
  } catch {
    return undefined;
  }
}
